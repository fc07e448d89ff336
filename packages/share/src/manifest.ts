/**
 * The two manifests of a package. Inside the zip, `mime-package.json`: what the workflow is, its safety
 * facts and every file's size and sha256. Beside the zips, a catalog `manifest.json` in the shape of
 * ai_mime's marketplace (github.com/prakhar1114/ai_mime_marketplace, `docs/manifest.json`: `items[]`
 * with `id`, `name`, `description`, `version`, `author`, `tags`, `package_url`, `sha256`,
 * `size_bytes`, `requires_login`, `side_effects[]`, `stops_before_payment`, `safety_notes[]`).
 */
import { z } from 'zod';

/** The file name of the manifest inside a package. */
export const PACKAGE_MANIFEST = 'mime-package.json';
/** The file name of a catalog, as the marketplace serves it. */
export const CATALOG_FILE = 'manifest.json';

/** A package id: a folder name under `workflows/`. */
export const PACKAGE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits');

/** What a workflow may do that a person should know before running it (null: not said). */
export const SafetyFacts = z.object({
  requires_login: z.boolean().nullable().default(null),
  side_effects: z.array(z.string()).default([]),
  stops_before_payment: z.boolean().nullable().default(null),
  safety_notes: z.array(z.string()).default([]),
});
export type SafetyFacts = z.infer<typeof SafetyFacts>;

/** What a package is, shared by its manifest and its catalog item. */
const PackageFacts = SafetyFacts.extend({
  id: z.string().regex(PACKAGE_ID, 'an id is letters, digits, ".", "_" and "-" (a folder name)'),
  name: z.string().default(''),
  description: z.string().default(''),
  version: z.string().default('0.1.0'),
  author: z.string().default(''),
  tags: z.array(z.string()).default([]),
});

/** One file of a package. */
export const PackageFile = z.strictObject({
  path: z.string().min(1),
  size_bytes: z.int().nonnegative(),
  sha256: Sha256,
});
export type PackageFile = z.infer<typeof PackageFile>;

/** `mime-package.json`. */
export const PackageManifest = PackageFacts.extend({
  format: z.literal('mime-package'),
  format_version: z.literal(1),
  type: z.literal('workflow').default('workflow'),
  files: z.array(PackageFile),
});
export type PackageManifest = z.infer<typeof PackageManifest>;

/** One item of a catalog: where its zip is and what its bytes must be. Other keys are kept. */
export const CatalogItem = z.looseObject({
  ...PackageFacts.shape,
  type: z.string().default('workflow'),
  package_url: z.string().min(1),
  sha256: Sha256,
  size_bytes: z.int().positive(),
});
export type CatalogItem = z.infer<typeof CatalogItem>;

/** A catalog `manifest.json`. */
export const Catalog = z.looseObject({
  version: z.number().default(1),
  name: z.string().default(''),
  items: z.array(CatalogItem),
});
export type Catalog = z.infer<typeof Catalog>;
