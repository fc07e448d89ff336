/**
 * Property tests on hostile input: whatever bytes a shared workflow or recording holds, validation
 * and the recording reader answer with a report or one of mime's usage errors (exit 2), never with
 * an error that would end in "internal error".
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isMimeError } from '../src/errors.ts';
import { readManifest, readRecordingMetadata } from '../src/recording.ts';
import { validateWorkflowTarget } from '../src/validate-target.ts';

const tempDirs = useTempDirs();
let dir: string;
beforeAll(async () => {
  dir = await tempDirs('mime-fuzz-');
});

/** Text that looks like a file mime reads: JSON values of every shape, broken JSON, raw bytes. */
const hostileText = fc.oneof(
  fc.json({ depthSize: 'large' }),
  fc
    .jsonValue()
    .map((v) => JSON.stringify({ task_name: 'x', plan: { subtasks: [{ steps: [v] }] }, extra: v })),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme-composite' }),
  fc.nat({ max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n % 7 === 0 ? 0 : n)}`),
  fc.constantFrom(
    '\uFEFF{}',
    '{"__proto__": {"a": 1}}',
    '{"constructor": {"prototype": {}}}',
    '',
    '\u0000',
    'nul',
  ),
);
const hostileBytes = fc.oneof(
  hostileText.map((t) => Buffer.from(t, 'utf8')),
  fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a)),
);

/** Runs `read` on the bytes written to `name`; fails the property unless it answers or throws a usage error. */
async function answersOrRefuses(name: string, bytes: Buffer, read: (file: string) => Promise<unknown>) {
  const file = join(dir, name);
  await writeFile(file, bytes);
  try {
    await read(file);
  } catch (error) {
    if (!(isMimeError(error) && error.exit === 'usage')) throw error;
  }
}

describe('hostile input', () => {
  it('validation reports on any schema.json, never throws', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBytes, async (bytes) => {
        await writeFile(join(dir, 'schema.json'), bytes);
        const report = await validateWorkflowTarget(join(dir, 'schema.json'));
        expect(typeof report.valid).toBe('boolean');
        if (!report.valid) expect(report.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('the recording reader refuses any bad manifest.jsonl or metadata.json with a usage error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileText, { maxLength: 6 }), hostileBytes, async (lines, metadata) => {
        await answersOrRefuses('manifest.jsonl', Buffer.from(lines.join('\n')), readManifest);
        await answersOrRefuses('metadata.json', metadata, readRecordingMetadata);
      }),
      { numRuns: 300 },
    );
  });
});
