import { MimeError } from '@mime-desktop/schema/errors';

/** The stable codes of a refused pack, catalog or install. */
export type ShareErrorCode =
  /** The archive is not a zip, or holds an entry mime never installs (a link, `..`, an absolute path, too many or too large entries, run state). */
  | 'MIME_PACKAGE_UNSAFE'
  /** The archive's size or a checksum differs from what its catalog or manifest says: changed or damaged on the way. */
  | 'MIME_PACKAGE_TAMPERED'
  /** The unpacked workflow does not validate. */
  | 'MIME_PACKAGE_INVALID'
  /** A workflow of that id is installed already (pass --force to replace it, keeping a backup). */
  | 'MIME_PACKAGE_EXISTS'
  /** Nobody said yes: no terminal to ask on and no --yes, or the answer was no. */
  | 'MIME_PACKAGE_NOT_CONFIRMED'
  /** The catalog cannot be read, is not a catalog, or has no such item. */
  | 'MIME_CATALOG_INVALID'
  /** A workflow cannot be packed: an unsafe file in it, a bad id or version. */
  | 'MIME_PACK_REFUSED';

/** A refused pack or install: what is wrong and how to fix it; nothing was installed or half written. */
export class ShareError extends MimeError {
  declare readonly code: ShareErrorCode;

  constructor(code: ShareErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, { ...options, exit: 'usage' });
  }
}
