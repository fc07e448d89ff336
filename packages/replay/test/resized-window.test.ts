/**
 * A fake editor on the in-memory desktop replayed in a window smaller than recorded: its text area
 * follows the window (3/4 as big), its text keeps its size, and the window's title is centred in its
 * bar, so Ctrl+S's change (the title's "*" gone) stands elsewhere than any one layout maps it. The
 * save is checked by where the screen changed; a save that did not happen still stops the run.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { replay } from '../src/run/replay.ts';
import { createFakeDesktop, type FakeDesktop, textLine } from './fake-desktop.ts';
import { recordWorkflow } from './recorded-workflow.ts';

/** The editor's window: as recorded, and 3/4 as wide and tall. */
const RECORDED_WINDOW = { width: 320, centre: 12 };
const SMALLER_WINDOW = { width: 240, centre: 4 };

/** Its text area, many lines tall (line 1 of the fake desktop on), as big as the window leaves it. */
const textArea = (width: number, text: string): AccessibleElement => ({
  role: 'text',
  name: '',
  label: null,
  app: 'Fake editor',
  window: { role: 'frame', name: 'note.txt - Editor' },
  path: [{ role: 'text', name: '', index: 0 }],
  states: ['editable', 'focusable', 'focused', 'multi-line'],
  extents: { x: 0, y: textLine(1).baseline - 17, width, height: (width * 3) / 8 } satisfies ElementBox,
  text,
});

interface EditorOptions {
  window: { width: number; centre: number };
  /** Whether Ctrl+S saves (the title loses its "*"). Default true. */
  saves?: boolean;
}

/** What the editor holds after the inputs: its text and whether it is saved. */
function editorState(inputs: readonly string[], saves: boolean) {
  let text = '';
  let dirty = false;
  for (const input of inputs) {
    if (input.startsWith('type ')) [text, dirty] = [text + input.slice('type '.length), true];
    else if (input === 'key ctrl+s' && saves) dirty = false;
  }
  return { text, dirty };
}

/** The fake editor: its title centred in the window's width (no-break spaces before it), then its text. */
function editorDesktop({ window, saves = true }: EditorOptions): FakeDesktop {
  const state = () => editorState(desktop.inputs, saves);
  const a11y: Accessibility = {
    elementAt: async () => textArea(window.width, state().text),
    lineAt: async () => state().text,
    focused: async () => textArea(window.width, state().text),
    wake: async () => undefined,
    find: async () => [textArea(window.width, state().text)],
    apps: async () => ['Fake editor'],
    close: async () => undefined,
  };
  const desktop = createFakeDesktop({
    react: () => false,
    shows: (inputs) => {
      const { text, dirty } = editorState(inputs, saves);
      return [`${'\u00a0'.repeat(window.centre)}${dirty ? '*' : ''}note.txt - Editor`, text];
    },
    accessibility: a11y,
  });
  return desktop;
}

let workflowDir: string;
const ocr = new OcrEngine();
const tempDirs = useTempDirs();

beforeAll(async () => {
  workflowDir = await tempDirs('mime-resized-window-');
  const at = { x: 40, y: textLine(1).baseline - 6 };
  await recordWorkflow(workflowDir, editorDesktop({ window: RECORDED_WINDOW }), {
    params: [
      {
        name: 'line',
        type: 'string',
        description: 'The line.',
        example: 'First line',
        sensitive: false,
        optional: false,
      },
    ],
    subtasks: [
      {
        text: 'Write {line} and save. Expected outcome: the note holds {line}.',
        acts: [
          {
            intent: 'Click the text.',
            click: at,
            box: { x: 20, y: at.y - 8, width: 40, height: 16 },
            element: textArea(RECORDED_WINDOW.width, ''),
          },
          {
            intent: 'Type the line.',
            type: 'First line',
            value: '{line}',
            element: textArea(320, 'First line'),
          },
          { intent: 'Save.', key: 'ctrl+s', element: textArea(RECORDED_WINDOW.width, 'First line') },
        ],
      },
    ],
  });
}, 30_000);
afterAll(async () => {
  await ocr.close();
});

function run(options: EditorOptions) {
  const events: ReplayEvent[] = [];
  const result = replay(workflowDir, {
    mode: 'trace',
    pauseHotkey: null,
    params: { line: 'Other line' },
    desktop: editorDesktop(options),
    budgets: { modelCalls: 0 },
    settle: { initialDelayMs: 0, intervalMs: 2, stableMs: 4, timeoutMs: 50 },
    stepTimeoutMs: 300,
    ocr,
    onEvent: (event) => events.push(event),
  });
  return { result, events };
}

describe('a window smaller than recorded', () => {
  it("checks Ctrl+S's change by where the screen changed: the title centred in a narrower bar", async () => {
    const { result, events } = run({ window: SMALLER_WINDOW });
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary.outcome).toBe('success');
    const layouts = events.flatMap((e) => (e.type === 'step' && e.step_i === 0 ? [e.reason] : []));
    // The text area found 3/4 as big is no 0.75x layout: the window only got smaller.
    expect(layouts).toEqual(['found the unnamed text by its accessibility identity']);
    const save = events.find((e) => e.type === 'verify' && e.step_i === 2);
    expect(save).toMatchObject({ check: 'after_step' });
  });

  it('still stops where Ctrl+S did not save (the title keeps its "*")', async () => {
    const { result, events } = run({ window: SMALLER_WINDOW, saves: false });
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toMatch(
      /^step 3 \(key ctrl\+s\): after step 3 \(keypress ctrl\+s\), the screen did not change/,
    );
    const divergences = events.filter((e) => e.type === 'divergence');
    expect(divergences.map((e) => [e.step_i, e.check])).toEqual([[2, 'after_step']]);
  });
});
