/**
 * What a workflow was when a run started: the SHA-256 of its schema and of its recording's manifest.
 * A heal learned from a run is written back only while both are still the same.
 */
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { isMissingFileError, MAX_JSON_BYTES, readRegularFile } from '@mime-desktop/schema';

/** The recording's manifest in a workflow's folder. */
export const MANIFEST_FILE = 'manifest.jsonl';

export interface WorkflowFingerprint {
  workflowSha256: string;
  /** Of manifest.jsonl; of the empty string for a workflow without a recording. */
  manifestSha256: string;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The SHA-256 of the recording's manifest in `workflowDir`; of the empty string when it has none. */
export async function manifestSha256(workflowDir: string): Promise<string> {
  // A workflow without a recording has no manifest; a manifest that is a FIFO or a link out is refused.
  const manifest = await readRegularFile(join(workflowDir, MANIFEST_FILE), MAX_JSON_BYTES).catch(
    (error: unknown) => {
      if (isMissingFileError(error)) return '';
      throw error;
    },
  );
  return sha256(manifest);
}

/**
 * The fingerprint of a workflow file read once (its bytes' SHA-256, taken as it was read: see
 * `readTextFileWithDigest`) and of the manifest beside it.
 */
export async function fingerprintWorkflow(read: {
  file: string;
  sha256: string;
}): Promise<WorkflowFingerprint> {
  return { workflowSha256: read.sha256, manifestSha256: await manifestSha256(dirname(read.file)) };
}
