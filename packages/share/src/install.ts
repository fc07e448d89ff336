/**
 * `mime install`: a package from a zip or a catalog, checked (size, checksums, every entry), unpacked
 * into a quarantine folder under the install lock, validated and previewed, and moved into
 * `<home>/workflows/<id>` only once the caller's `confirm` says yes. Refused whole otherwise: nothing is
 * left in `workflows/`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  backupStamp,
  checkWorkflow,
  describeFileAccess,
  isRequiredParam,
  loadWorkflow,
  makeFolder,
  readJsonFile,
  readWorkflowContext,
  resolveInside,
  serializeWorkflow,
  slugOf,
  validateWorkflowTarget,
  withFolderLock,
  writeFileAtomically,
} from '@mime-desktop/schema';
import { type ArchiveFile, type ArchiveLimits, readArchive } from './archive.ts';
import {
  type FetchOptions,
  fetchItemPackage,
  MAX_PACKAGE_BYTES,
  readCatalog,
  readLocation,
  tampered,
} from './catalog.ts';
import { leftOutReason, sha256Of } from './contents.ts';
import { ShareError } from './errors.ts';
import {
  type CatalogItem,
  PACKAGE_ID,
  PACKAGE_MANIFEST,
  PackageManifest,
  type SafetyFacts,
} from './manifest.ts';
import { safetyOfWorkflow } from './safety.ts';

/** Where a package comes from. */
export type InstallSource =
  /** A zip on this machine or at an http(s) URL; `sha256`, when given, is checked. */
  | { archive: string; sha256?: string }
  /** The item `id` of a catalog `manifest.json` at a path or an http(s) URL. */
  | { catalog: string; id: string };

/** What a person is shown before saying yes. */
export interface InstallPreview extends SafetyFacts {
  id: string;
  name: string;
  description: string;
  version: string | null;
  author: string | null;
  /** Where the zip came from. */
  source: string;
  /** What was checked of its bytes, in words. */
  checked: string;
  params: Array<{ name: string; type: string; required: boolean; sensitive: boolean; description: string }>;
  /** The command the workflow runs to start its app (its `setup`), or null. */
  starts: string | null;
  /** The filesystem paths it says it reads and writes (its optimized_plan.json). */
  reads: string[];
  writes: string[];
  files: number;
  bytes: number;
  /** The folder it goes to. */
  target: string;
  /** Whether a workflow there is replaced (its backup kept). */
  replaces: boolean;
  warnings: string[];
}

export interface InstallOptions extends FetchOptions {
  /** The data root: the workflow goes to `<home>/workflows/<id>`. */
  home: string;
  /** Replace a workflow of the same id, keeping it as a backup. Default false. */
  force?: boolean;
  /** Asked with the preview; the package is installed only on true. */
  confirm: (preview: InstallPreview) => Promise<boolean>;
  limits?: ArchiveLimits;
}

export interface InstallResult {
  dir: string;
  /** Where the replaced workflow was moved, or null. */
  backup: string | null;
  preview: InstallPreview;
}

interface Fetched {
  zip: Buffer;
  source: string;
  checked: string;
  item: CatalogItem | null;
}

async function fetchSource(source: InstallSource, options: FetchOptions): Promise<Fetched> {
  if ('catalog' in source) {
    const catalog = await readCatalog(source.catalog, options);
    const item = catalog.items.find((candidate) => candidate.id === source.id);
    if (!item) {
      const ids = catalog.items.map((candidate) => candidate.id).join(', ') || 'none';
      throw new ShareError(
        'MIME_CATALOG_INVALID',
        `${source.catalog} has no item "${source.id}" (its items: ${ids}); pass one of them to --id`,
      );
    }
    const { location, zip } = await fetchItemPackage(source.catalog, item, options);
    return { zip, source: location, checked: `size and sha256 ${item.sha256} as its catalog says`, item };
  }
  const zip = await readLocation(source.archive, MAX_PACKAGE_BYTES, 'package', {
    ...options,
    tooLarge: (max) =>
      new ShareError('MIME_PACKAGE_UNSAFE', `${source.archive}: larger than the ${max} bytes mime opens`),
  });
  if (source.sha256 !== undefined) {
    const sha256 = sha256Of(zip);
    if (sha256 !== source.sha256.toLowerCase()) {
      throw tampered(source.archive, `its sha256 is ${sha256}, not the ${source.sha256} given`);
    }
    return { zip, source: source.archive, checked: `sha256 ${sha256} as given`, item: null };
  }
  return { zip, source: source.archive, checked: 'no checksum given for the zip itself', item: null };
}

/** The package's own manifest, with every file it lists checked against the archive; null when it has none. */
function checkManifest(files: readonly ArchiveFile[], where: string): PackageManifest | null {
  const entry = files.find((file) => file.path === PACKAGE_MANIFEST);
  if (!entry) return null;
  let manifest: PackageManifest;
  try {
    manifest = PackageManifest.parse(JSON.parse(entry.data.toString('utf8')));
  } catch (error) {
    throw tampered(
      where,
      `its ${PACKAGE_MANIFEST} does not read (${(error as Error).message.split('\n')[0]})`,
    );
  }
  const listed = new Map(manifest.files.map((file) => [file.path, file]));
  for (const file of files) {
    if (file.path === PACKAGE_MANIFEST) continue;
    const expected = listed.get(file.path);
    if (!expected) throw tampered(where, `${file.path} is in the zip but not in its ${PACKAGE_MANIFEST}`);
    listed.delete(file.path);
    if (file.data.length !== expected.size_bytes) {
      throw tampered(
        where,
        `${file.path} has ${file.data.length} bytes where its manifest says ${expected.size_bytes}`,
      );
    }
    if (sha256Of(file.data) !== expected.sha256) {
      throw tampered(where, `${file.path} does not match the sha256 its manifest says`);
    }
  }
  const missing = [...listed.keys()];
  if (missing.length > 0) throw tampered(where, `${missing.join(', ')} listed in its manifest but missing`);
  return manifest;
}

/** The facts that were said (not null, not empty), for one source to fill in another. */
function said(facts: Partial<SafetyFacts> | null): Partial<SafetyFacts> {
  if (!facts) return {};
  const { requires_login, side_effects, stops_before_payment, safety_notes } = facts;
  return Object.fromEntries(
    Object.entries({ requires_login, side_effects, stops_before_payment, safety_notes }).filter(
      ([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

function idOf(fetched: Fetched, manifest: PackageManifest | null): string {
  const id =
    fetched.item?.id ?? manifest?.id ?? slugOf(basename(fetched.source).replace(/\.zip$/i, ''), '-', 64);
  if (!PACKAGE_ID.test(id)) {
    throw new ShareError(
      'MIME_PACKAGE_INVALID',
      `"${id}" cannot be a workflow folder name; nothing was installed`,
    );
  }
  return id;
}

/**
 * Writes the safety facts the package states into its schema.json when the workflow does not state
 * them so (an ai_mime marketplace item's facts live in its catalog only), in the file's own layout: so
 * `mime list`, `mime replay` and agents see them after the install.
 */
async function recordFacts(file: string, folder: string, stated: Partial<SafetyFacts>): Promise<void> {
  const result = checkWorkflow(await readJsonFile(file), await readWorkflowContext(folder));
  if (!result.ok) return;
  const own: Partial<SafetyFacts> = safetyOfWorkflow(result.workflow);
  const differs = (Object.keys(stated) as Array<keyof SafetyFacts>).some(
    (key) => JSON.stringify(own[key]) !== JSON.stringify(stated[key]),
  );
  if (!differs) return;
  const workflow = {
    ...result.workflow,
    ...stated,
    requires_login: stated.requires_login ?? own.requires_login ?? undefined,
    stops_before_payment: stated.stops_before_payment ?? own.stops_before_payment ?? undefined,
  };
  await writeFileAtomically(file, serializeWorkflow(workflow, result.from), { inside: folder });
}

/** Installs a package; see the module comment. Throws {@link ShareError} for every refusal. */
export async function installPackage(source: InstallSource, options: InstallOptions): Promise<InstallResult> {
  const home = resolve(options.home);
  const fetched = await fetchSource(source, options);
  const files = await readArchive(fetched.zip, fetched.source, options.limits);
  for (const file of files) {
    const reason = file.path === PACKAGE_MANIFEST ? null : leftOutReason(file.path);
    if (reason) {
      throw new ShareError(
        'MIME_PACKAGE_UNSAFE',
        `${fetched.source}: entry "${file.path}" is ${reason}; a package holds no runs, logs, locks, drafts or backups; nothing was installed`,
      );
    }
  }
  const manifest = checkManifest(files, fetched.source);
  const id = idOf(fetched, manifest);
  const installed = files.filter((file) => file.path !== PACKAGE_MANIFEST);
  const target = join(home, 'workflows', id);
  const clash = () =>
    new ShareError(
      'MIME_PACKAGE_EXISTS',
      `${target} exists: a workflow of id "${id}" is installed; pass --force to replace it (it is kept as a backup), or remove it first; nothing was installed`,
    );
  if (existsSync(target) && !options.force) throw clash();
  const staging = join(home, '.mime-install');
  await makeFolder(staging, { inside: home });
  return withFolderLock(staging, { holder: 'mime install' }, async () => {
    const quarantine = join(staging, `quarantine-${id}-${randomUUID().slice(0, 8)}`);
    try {
      for (const file of installed) {
        const path = await resolveInside(quarantine, file.path, 'package entry');
        await writeFileAtomically(path, file.data, { inside: staging });
      }
      const report = await validateWorkflowTarget(quarantine);
      if (!report.valid) {
        const problems = report.problems.map((p) => `  ${p.path || '(document)'}: ${p.message}`).join('\n');
        throw new ShareError(
          'MIME_PACKAGE_INVALID',
          `${fetched.source} does not hold a valid workflow; nothing was installed:\n${problems}`,
        );
      }
      const loaded = await loadWorkflow(quarantine);
      const { workflow } = loaded;
      const facts = { ...safetyOfWorkflow(workflow), ...said(manifest), ...said(fetched.item) };
      const access = describeFileAccess(loaded.optimizedPlan);
      const preview: InstallPreview = {
        id,
        name: workflow.task_name,
        description: fetched.item?.description || manifest?.description || workflow.task_description_user,
        version: fetched.item?.version ?? manifest?.version ?? null,
        author: fetched.item?.author || manifest?.author || null,
        source: fetched.source,
        checked: manifest
          ? `${fetched.checked}; every file against its manifest`
          : `${fetched.checked}; no package manifest (not made by mime pack)`,
        params: workflow.task_params.map((param) => ({
          name: param.name,
          type: param.type,
          required: isRequiredParam(param),
          sensitive: param.sensitive,
          description: param.description,
        })),
        starts: workflow.setup?.command ?? null,
        reads: access.read,
        writes: access.write,
        requires_login: facts.requires_login ?? null,
        side_effects: facts.side_effects ?? [],
        stops_before_payment: facts.stops_before_payment ?? null,
        safety_notes: facts.safety_notes ?? [],
        files: installed.length,
        bytes: installed.reduce((sum, file) => sum + file.data.length, 0),
        target,
        replaces: existsSync(target),
        warnings: loaded.warnings.map((w) => `${w.path ? `${w.path}: ` : ''}${w.message}`),
      };
      if (!(await options.confirm(preview))) {
        throw new ShareError('MIME_PACKAGE_NOT_CONFIRMED', `not installed: the install was not confirmed`);
      }
      await recordFacts(loaded.file, quarantine, { ...said(manifest), ...said(fetched.item) });
      let backup: string | null = null;
      if (existsSync(target)) {
        if (!options.force) throw clash();
        backup = join(staging, 'backups', `${id}-${backupStamp()}`);
        await makeFolder(join(staging, 'backups'), { inside: staging });
        await rename(target, backup);
      }
      await makeFolder(join(home, 'workflows'), { inside: home, dirMode: 0o755 });
      await rename(quarantine, target);
      return { dir: target, backup, preview };
    } finally {
      await rm(quarantine, { recursive: true, force: true });
    }
  });
}
