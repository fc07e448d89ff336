/**
 * The mode descriptors of run/: what each checks before the run, whether it surely needs the model,
 * and that nothing else in run/, recorded/, the CLI or the studio asks which mode a run is in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { ReplayOptionError, TraceUnavailableError } from '../src/errors.ts';
import { AGENT, AUTO, runModeOf, SUPPORTED_MODES, TRACE } from '../src/run/run-modes.ts';

const PLAY_SONG = new URL('../../../fixtures/workflows/play-song-recorded', import.meta.url).pathname;
const RUN = new URL('../src/run', import.meta.url).pathname;
const RECORDED = new URL('../src/recorded', import.meta.url).pathname;
const CLI = new URL('../../cli/src', import.meta.url).pathname;
const STUDIO = new URL('../../studio/src', import.meta.url).pathname;

async function recordedSteps() {
  const { workflow } = await loadWorkflow(PLAY_SONG);
  return workflow.plan.subtasks.flatMap((s) => s.steps);
}

describe('run modes', () => {
  it('names each mode by its descriptor, and refuses an unknown name naming the known ones', () => {
    expect(SUPPORTED_MODES.map((name) => runModeOf(name).name)).toEqual(SUPPORTED_MODES);
    expect(runModeOf('trace')).toBe(TRACE);
    expect(() => runModeOf('nope')).toThrow(ReplayOptionError);
    expect(() => runModeOf('nope')).toThrow(/mode must be one of agent, trace, auto, got "nope"/);
  });

  it('auto alone hands a step the recording does not carry over to the model', () => {
    expect(SUPPORTED_MODES.filter((name) => runModeOf(name).handsOverToModel)).toEqual(['auto']);
    expect(() => runModeOf(7)).toThrow(/mode must be one of agent, trace, auto, got 7/);
  });

  it('trace refuses a step without a recording; auto takes it, with the model', async () => {
    const steps = await recordedSteps();
    const [first, ...rest] = steps;
    if (!first) throw new Error('the fixture has no steps');
    const handWritten = [{ ...first, source: null }, ...rest];
    const check = { steps: handWritten, workflowDir: PLAY_SONG, modelForbidden: false };
    await expect(TRACE.checkBeforeStart(check)).rejects.toThrow(TraceUnavailableError);
    await expect(AUTO.checkBeforeStart(check)).resolves.toBeUndefined();
    expect(AUTO.needsModel(handWritten)).toBe(true);
    expect(AUTO.needsModel(steps)).toBe(false);
    expect(AUTO.needsModel([])).toBe(true);
    expect(TRACE.needsModel(steps)).toBe(false);
  });

  it('agent refuses a run that may not call a model, and always needs one', async () => {
    const steps = await recordedSteps();
    const check = { steps, workflowDir: PLAY_SONG, modelForbidden: true };
    await expect(AGENT.checkBeforeStart(check)).rejects.toThrow(/model calls budget is 0/);
    await expect(AGENT.checkBeforeStart({ ...check, modelForbidden: false })).resolves.toBeUndefined();
    expect(AGENT.needsModel(steps)).toBe(true);
  });

  it('leaves run/, recorded/, the CLI and the studio no branch on a mode name: the descriptors and mode objects carry the policy', () => {
    const name = "'(?:trace|auto|agent)'";
    // Whether a mode is given (=== undefined, null) is no branch on which; nor is a heal change's `kind`.
    const branch = new RegExp(
      `\\bmode(?:\\.name)?\\s*[!=]==?(?!=|\\s*(?:undefined|null)\\b)|(?<!\\.kind\\s*|[!=])[!=]==?\\s*${name}|${name}\\s*[!=]==?|\\bcase\\s+${name}`,
    );
    const offenders = [RUN, RECORDED, CLI, STUDIO].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .filter((f) => branch.test(readFileSync(join(dir, f), 'utf8')))
        .map((f) => join(dir, f)),
    );
    expect(offenders).toEqual([]);
    for (const text of [
      "if (prepared.mode === 'auto') learn();",
      "return mode === 'trace' ? [a] : [b];",
      "if (name !== 'agent') return;",
      "case 'auto':",
    ]) {
      expect(branch.test(text), text).toBe(true);
    }
    for (const text of [
      "recordStep({ executed_by: 'trace' })",
      'const byMode = mode === undefined ? undefined : hints[mode];',
      "c.kind === 'agent' ? c.after : []",
    ]) {
      expect(branch.test(text), text).toBe(false);
    }
  });
});
