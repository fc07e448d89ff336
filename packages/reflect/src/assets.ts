import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ManifestLine,
  type RecordingMetadata,
  readManifest,
  readRecordingMetadata,
  writeFileAtomically,
  writeJsonAtomic,
} from '@mime-desktop/schema';
import sharp from 'sharp';
import { RecordingError } from './errors.ts';
import type { ReflectStep } from './steps.ts';

/** The marked copy of a step's PRE frame: `screenshots/3.png` -> `screenshots/3_marked.png`. */
export function markedPath(screenshot: string): string {
  return screenshot.replace(/\.png$/i, '_marked.png');
}

/** Reads a recording and checks that it can be reflected: events to reflect, every screenshot present. */
export async function readRecording(
  sessionDir: string,
): Promise<{ metadata: RecordingMetadata; lines: ManifestLine[] }> {
  const metadata = await readRecordingMetadata(join(sessionDir, 'metadata.json'));
  const manifest = join(sessionDir, 'manifest.jsonl');
  const lines = await readManifest(manifest);
  if (!lines.some(({ event }) => event.action_type !== null)) {
    throw new RecordingError(
      `${manifest}: the recording has no actions to reflect; record the task again with \`mime record\``,
    );
  }
  const missing: string[] = [];
  for (const { event, line } of lines) {
    if (event.action_type === null && event.screenshot === null) continue;
    if (event.screenshot === null) {
      missing.push(`line ${line}: no screenshot recorded`);
      continue;
    }
    try {
      await stat(join(sessionDir, event.screenshot));
    } catch {
      missing.push(`line ${line}: ${event.screenshot} is missing`);
    }
  }
  if (missing.length > 0) {
    throw new RecordingError(
      `${manifest}: ${missing.length} screenshot(s) cannot be found:\n  ${missing.join('\n  ')}\nRecord the task again, or restore the files in ${join(sessionDir, 'screenshots')}`,
    );
  }
  return { metadata, lines };
}

const marker = (x: number, y: number, width: number, height: number) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<circle cx="${x}" cy="${y}" r="16" fill="none" stroke="#ff0033" stroke-width="4"/>` +
      `<circle cx="${x}" cy="${y}" r="3" fill="#ff0033"/></svg>`,
  );

/**
 * Refreshes a workflow's copy of the recording: metadata.json, manifest.jsonl (normalized), the
 * original screenshots, and a marked copy of each pointer step's PRE frame. The originals are never
 * drawn on, so a marked PRE never stands in as the previous step's POST. Checkpoints
 * (step_cards.json, schema*.json) are left alone.
 */
export async function refreshAssets(
  sessionDir: string,
  workflowDir: string,
  recording: { metadata: RecordingMetadata; lines: ManifestLine[] },
  steps: readonly ReflectStep[],
): Promise<void> {
  await mkdir(join(workflowDir, 'screenshots'), { recursive: true, mode: 0o700 });
  await writeJsonAtomic(join(workflowDir, 'metadata.json'), recording.metadata);
  await writeFileAtomically(
    join(workflowDir, 'manifest.jsonl'),
    recording.lines.map(({ event }) => `${JSON.stringify(event)}\n`).join(''),
  );
  for (const { event } of recording.lines) {
    if (event.screenshot)
      await copyFile(join(sessionDir, event.screenshot), join(workflowDir, event.screenshot));
  }
  for (const step of steps) {
    const point = step.source.point;
    if (!point) continue;
    const image = sharp(join(sessionDir, step.pre));
    const { width = 0, height = 0 } = await image.metadata();
    await image
      .composite([{ input: marker(point.x, point.y, width, height), top: 0, left: 0 }])
      .png({ compressionLevel: 1 })
      .toFile(join(workflowDir, markedPath(step.pre)));
  }
}
