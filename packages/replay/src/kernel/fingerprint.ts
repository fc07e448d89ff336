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

/** The fingerprint of the workflow file `workflowFile` and of the manifest beside it. */
export async function fingerprintWorkflow(workflowFile: string): Promise<WorkflowFingerprint> {
  const [workflow, manifest] = await Promise.all([
    readRegularFile(workflowFile, MAX_JSON_BYTES),
    // A workflow without a recording has no manifest; a manifest that is a FIFO or a link out is refused.
    readRegularFile(join(dirname(workflowFile), MANIFEST_FILE), MAX_JSON_BYTES).catch((error: unknown) => {
      if (isMissingFileError(error)) return '';
      throw error;
    }),
  ]);
  return { workflowSha256: sha256(workflow), manifestSha256: sha256(manifest) };
}
