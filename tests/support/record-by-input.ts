/**
 * Recording a task as a person makes it: `mime record` runs on a harness display while the test
 * drives the app with xdotool; and the address task two e2e tests record (a Name and a City field).
 */
import { expect } from 'vitest';
import type { DesktopHarness } from './desktop-harness.ts';
import { runMime, startMime } from './run-mime.ts';
import { sleep } from './wait.ts';

/** Resolves once the recorder has reported `count` events (its progress lines `#0`, `#1`, ...). */
export type Recorded = (count: number) => Promise<void>;

/**
 * Records what `drive` does on the harness display into `<home>/recordings/`; the session id. `drive`
 * gets a function that waits for the recorder to have reported a number of events.
 */
export async function recordByInput(
  harness: DesktopHarness,
  home: string,
  name: string,
  drive: (recorded: Recorded) => Promise<void>,
  { launch, env = harness.env }: { launch?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const launchArgs = launch ? ['--launch', launch] : [];
  const recorder = startMime(['record', '--name', name, '--home', home, ...launchArgs], { env });
  // With --launch the session starts once the app's window shows: over 30 s for Firefox on a busy machine.
  const session = await recorder.waitForStdoutLine(90_000);
  await recorder.waitForStderr(/● Recording/, 30_000);
  await drive(async (count) => {
    await recorder.waitForStderr(new RegExp(`^ {2}#${count - 1} `, 'm'));
  });
  expect((await runMime(['record', 'stop', '--session', session], { env })).exitCode).toBe(0);
  expect((await recorder.done).exitCode).toBe(0);
  return session;
}

/**
 * Clicks the Name field, types "Ann Lee", clicks the City field, types "Paris" (4 events, the last
 * one reported when the next input ends its typing). Each click is typed after once it is recorded;
 * after typing, a person's pause before the focus moves: the recorder asks which element has the
 * focus as it sees each key, and nothing tells when it has seen the last one.
 */
export async function fillAddress(
  harness: DesktopHarness,
  fields: { name: { x: number; y: number }; city: { x: number; y: number } },
  recorded: Recorded,
): Promise<void> {
  await harness.click(fields.name.x, fields.name.y);
  await recorded(1);
  await harness.typeText('Ann Lee');
  await sleep(300);
  await harness.click(fields.city.x, fields.city.y);
  await recorded(3);
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

/** A whole number from `min` to `max`, drawn anew each time (a person's timing varies). */
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/**
 * Input at a person's pace: the pointer rests 150-300 ms where it clicks, the click held 80-150 ms,
 * typing at 40-80 ms a key (the harness's own `click` and `typeText` are a machine's: instant, 20 ms
 * a key).
 */
export function asPerson(harness: DesktopHarness): {
  click(x: number, y: number): Promise<void>;
  type(text: string): Promise<void>;
  press(chord: string): Promise<void>;
} {
  return {
    click: (x, y) => harness.click(x, y, { restMs: between(150, 300), holdMs: between(80, 150) }),
    type: async (text) => {
      await harness.xdotool('type', '--delay', String(between(40, 80)), '--', text);
    },
    press: async (chord) => {
      await harness.xdotool('keydown', chord);
      await sleep(between(80, 150));
      await harness.xdotool('keyup', chord);
    },
  };
}
