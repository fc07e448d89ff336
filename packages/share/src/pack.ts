/** `mime pack`: a workflow folder as one zip with a manifest, and its item in a catalog beside it. */
import type { Dirent } from 'node:fs';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import {
  loadWorkflow,
  readJsonFile,
  readRegularFile,
  resolveInside,
  slugOf,
  writeFileAtomically,
  writeJsonAtomic,
} from '@mime-desktop/schema';
import { type ArchiveFile, DEFAULT_LIMITS, writeArchive } from './archive.ts';
import { leftOutReason, sha256Of } from './contents.ts';
import { ShareError } from './errors.ts';
import {
  CATALOG_FILE,
  Catalog,
  type CatalogItem,
  PACKAGE_ID,
  PACKAGE_MANIFEST,
  PackageManifest,
  SafetyFacts,
} from './manifest.ts';
import { safetyOfWorkflow } from './safety.ts';

export interface PackOptions {
  /** Folder the zip and the catalog `manifest.json` are written to. Default: the current directory. */
  out?: string;
  /** The package id (its folder name once installed). Default: the task name as a slug. */
  id?: string;
  /** Default `0.1.0`. */
  version?: string;
  /** Default: empty. */
  author?: string;
  /** Default: none. */
  tags?: string[];
  /** Safety facts said on the command line; they replace the workflow's own. */
  safety?: Partial<SafetyFacts>;
}

export interface PackResult {
  /** The zip written. */
  archive: string;
  /** The catalog it was added to (created when absent, the item of the same id replaced). */
  catalog: string;
  item: CatalogItem;
  manifest: PackageManifest;
}

/** Every file of a folder, as paths relative to it, in a stable order; refuses links. */
async function listFiles(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    throw new ShareError(
      'MIME_PACK_REFUSED',
      `${dir}: cannot list the workflow folder (${(error as Error).message})`,
    );
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/');
    if (leftOutReason(path)) continue;
    if (entry.isSymbolicLink()) {
      throw new ShareError(
        'MIME_PACK_REFUSED',
        `${join(dir, path)} is a symbolic link; a package holds regular files only: replace the link with a copy of its file`,
      );
    }
    if (entry.isFile()) files.push(path);
  }
  return files.sort();
}

/** Writes `<out>/<id>.zip` and adds it to `<out>/manifest.json`; returns what was written. */
export async function packWorkflow(workflowDir: string, options: PackOptions = {}): Promise<PackResult> {
  const dir = resolve(workflowDir.endsWith('.json') ? join(workflowDir, '..') : workflowDir);
  const { workflow } = await loadWorkflow(dir);
  const id = options.id ?? slugOf(workflow.task_name, '-', 64);
  if (!PACKAGE_ID.test(id)) {
    throw new ShareError(
      'MIME_PACK_REFUSED',
      `"${id}" cannot be a package id: use letters, digits, ".", "_" and "-" (pass --id)`,
    );
  }
  const out = resolve(options.out ?? '.');
  const catalogFile = join(out, CATALOG_FILE);
  // Read first: a manifest.json that is not a catalog stops the pack before anything is written.
  const catalog = existsSync(catalogFile) ? await readCatalogFile(catalogFile) : Catalog.parse({ items: [] });
  const files: ArchiveFile[] = [];
  for (const path of await listFiles(dir)) {
    const file = await resolveInside(dir, path, 'workflow file');
    files.push({ path, data: await readRegularFile(file, DEFAULT_LIMITS.maxEntryBytes, path) });
  }
  const safety = SafetyFacts.parse({ ...safetyOfWorkflow(workflow), ...options.safety });
  const manifest = PackageManifest.parse({
    format: 'mime-package',
    format_version: 1,
    id,
    name: workflow.task_name,
    description: workflow.task_description_user || workflow.detailed_task_description,
    version: options.version ?? '0.1.0',
    author: options.author ?? '',
    tags: options.tags ?? [],
    ...safety,
    files: files.map((f) => ({ path: f.path, size_bytes: f.data.length, sha256: sha256Of(f.data) })),
  });
  const zip = await writeArchive([
    { path: PACKAGE_MANIFEST, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    ...files,
  ]);
  const archive = join(out, `${id}.zip`);
  await writeFileAtomically(archive, zip, { mode: 0o644, dirMode: 0o755 });
  const item: CatalogItem = {
    id,
    name: manifest.name,
    description: manifest.description,
    type: 'workflow',
    version: manifest.version,
    author: manifest.author,
    tags: manifest.tags,
    package_url: `${id}.zip`,
    sha256: sha256Of(zip),
    size_bytes: zip.length,
    ...safety,
  };
  catalog.items = [...catalog.items.filter((other) => other.id !== id), item];
  await writeJsonAtomic(catalogFile, catalog, { mode: 0o644 });
  return { archive, catalog: catalogFile, item, manifest };
}

/** A catalog file on this machine, checked. */
export async function readCatalogFile(file: string): Promise<Catalog> {
  const parsed = Catalog.safeParse(await readJsonFile(file, {}));
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new ShareError(
    'MIME_CATALOG_INVALID',
    `${file} is not a package catalog (${first?.path.join('.') || 'document'}: ${first?.message}): it needs "items", each with id, package_url, sha256 and size_bytes; pick another --out for the package`,
  );
}
