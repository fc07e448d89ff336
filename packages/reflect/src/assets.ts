import { join } from 'node:path';
import {
  formatStep,
  isMimeError,
  type ManifestLine,
  makeFolder,
  type RecordingMetadata,
  readManifest,
  readPngInside,
  readRecordingMetadata,
  resolveInside,
  writeFileAtomically,
  writeJsonAtomic,
} from '@mime-desktop/schema';
import sharp from 'sharp';
import { RecordingError } from './errors.ts';
import type { ReflectStep } from './steps.ts';

/** The marked copy of a step's PRE frame: `screenshots/3.png` -> `screenshots/3_marked.png`. */
export function markedPath(screenshot: string): string {
  // Always another name than the screenshot's, whatever its extension (`0.img` → `0.img_marked.png`).
  return /\.png$/i.test(screenshot)
    ? screenshot.replace(/\.png$/i, '_marked.png')
    : `${screenshot}_marked.png`;
}

/** Events whose points lie off the recorded screen: a recording no app could have produced. */
function offScreen(lines: readonly ManifestLine[], metadata: RecordingMetadata): string[] {
  const screen = metadata.screen;
  if (!screen) return [];
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < screen.width && y < screen.height;
  const problems: string[] = [];
  for (const { event, line } of lines) {
    if (event.action_type === null) continue;
    const d = event.action_details as Partial<Record<'x' | 'y' | 'to_x' | 'to_y', number>>;
    const points = [
      [d.x, d.y],
      [d.to_x, d.to_y],
    ].filter((p): p is [number, number] => typeof p[0] === 'number' && typeof p[1] === 'number');
    for (const [x, y] of points) {
      if (!inside(x, y)) {
        problems.push(
          `line ${line}: ${event.action_type} at (${x}, ${y}) is off the recorded ${screen.width}x${screen.height} screen`,
        );
      }
    }
  }
  return problems;
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
  // Every screenshot must be a PNG inside the recording: a path that leaves it is refused before
  // anything is read, let alone sent to the model.
  const problems: string[] = offScreen(lines, metadata);
  for (const { event, line } of lines) {
    if (event.action_type === null && event.screenshot === null) continue;
    if (event.screenshot === null) {
      problems.push(`line ${line}: no screenshot recorded`);
      continue;
    }
    try {
      await readPngInside(sessionDir, event.screenshot, `manifest.jsonl line ${line}`);
    } catch (error) {
      if (isMimeError(error) && error.code === 'MIME_UNSAFE_PATH') throw error;
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) {
    throw new RecordingError(
      `${manifest}: ${problems.length} problem(s):\n  ${problems.join('\n  ')}\nRecord the task again, or restore the files in ${join(sessionDir, 'screenshots')}`,
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
  await makeFolder(join(workflowDir, 'screenshots'));
  await writeJsonAtomic(join(workflowDir, 'metadata.json'), recording.metadata);
  await writeFileAtomically(
    join(workflowDir, 'manifest.jsonl'),
    recording.lines.map(({ event }) => `${JSON.stringify(event)}\n`).join(''),
  );
  for (const { event, line } of recording.lines) {
    if (!event.screenshot) continue;
    const what = `manifest.jsonl line ${line}`;
    const png = await readPngInside(sessionDir, event.screenshot, what);
    await writeFileAtomically(await resolveInside(workflowDir, event.screenshot, what), png, {
      inside: workflowDir,
    });
  }
  for (const step of steps) {
    const point = step.source.point;
    if (!point) continue;
    const what = formatStep(step.i);
    const image = sharp(await readPngInside(sessionDir, step.pre, what));
    const { width = 0, height = 0 } = await image.metadata();
    const marked = await image
      .composite([{ input: marker(point.x, point.y, width, height), top: 0, left: 0 }])
      .png({ compressionLevel: 1 })
      .toBuffer();
    await writeFileAtomically(await resolveInside(workflowDir, markedPath(step.pre), what), marked, {
      inside: workflowDir,
    });
  }
}
