/**
 * What a workflow was when a run started: the SHA-256 of its schema and of its recording's manifest.
 * A heal learned from a run is written back only while both are still the same.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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
    readFile(workflowFile),
    readFile(join(dirname(workflowFile), MANIFEST_FILE)).catch(() => ''),
  ]);
  return { workflowSha256: sha256(workflow), manifestSha256: sha256(manifest) };
}
