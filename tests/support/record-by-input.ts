/**
 * Recording a task as a person makes it: `mime record` runs on a harness display while the test
 * drives the app with xdotool; and the address task two e2e tests record (a Name and a City field).
 */
import { expect } from 'vitest';
import type { DesktopHarness } from './desktop-harness.ts';
import { runMime, startMime } from './run-mime.ts';
import { sleep } from './wait.ts';

/** Records what `drive` does on the harness display into `<home>/recordings/`; the session id. */
export async function recordByInput(
  harness: DesktopHarness,
  home: string,
  name: string,
  drive: () => Promise<void>,
): Promise<string> {
  const recorder = startMime(['record', '--name', name, '--home', home], { env: harness.env });
  const session = await recorder.waitForStdoutLine();
  await recorder.waitForStderr(/● Recording/);
  await drive();
  expect((await runMime(['record', 'stop', '--session', session], { env: harness.env })).exitCode).toBe(0);
  expect((await recorder.done).exitCode).toBe(0);
  return session;
}

/** Clicks the Name field, types "Ann Lee", clicks the City field, types "Paris", at a person's pace. */
export async function fillAddress(
  harness: DesktopHarness,
  fields: { name: { x: number; y: number }; city: { x: number; y: number } },
): Promise<void> {
  await harness.click(fields.name.x, fields.name.y);
  await sleep(500);
  await harness.typeText('Ann Lee');
  await sleep(300);
  await harness.click(fields.city.x, fields.city.y);
  await sleep(500);
  await harness.typeText('Paris');
  await sleep(300);
}

/** The plan the fake reflect model gives the address task: `name` and `city` params. */
export const addressPlan = (subtasks: [string, string], description: string, success: string) => ({
  params: ['name', 'city'],
  subtasks,
  description,
  success,
});
