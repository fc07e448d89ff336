/**
 * The defaults `mime replay --help` and the README state are the code's: each is read from the
 * constant that sets it, so a changed default that the docs do not follow fails here.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeToolkitTyping } from '@mime-desktop/os-io';
import {
  DEFAULT_AGENT_SCOPE,
  DEFAULT_BUDGETS,
  DEFAULT_MAX_UNUSABLE_REPLIES,
  DEFAULT_MODE,
  DEFAULT_MODEL_IMAGE,
  DEFAULT_STEP_TIMEOUT_MS,
} from '@mime-desktop/replay';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerReplay } from '../src/commands/replay.ts';

const README = join(import.meta.dirname, '..', '..', '..', 'README.md');
const flat = (text: string) => text.replace(/\s+/g, ' ');

function replayHelp(): string {
  const program = new Command();
  registerReplay(program, () => undefined);
  const replay = program.commands.find((c) => c.name() === 'replay');
  if (!replay) throw new Error('no replay command');
  return flat(replay.helpInformation());
}

describe('the documented defaults of mime replay', () => {
  it('are the code’s in --help', () => {
    const help = replayHelp();
    expect(help).toContain(
      `model turns per subtask before it is replanned (default ${DEFAULT_BUDGETS.iterations})`,
    );
    expect(help).toContain(`(default ${DEFAULT_BUDGETS.modelCalls})`);
    expect(help).toContain(`replans in the whole run (default ${DEFAULT_BUDGETS.replans})`);
    expect(help).toContain(`wall time of the whole run (default ${DEFAULT_BUDGETS.wallTimeMs / 1000})`);
    expect(help).toContain(`(default ${DEFAULT_STEP_TIMEOUT_MS / 1000})`);
    expect(help).toContain(`MIME_MODEL_OUTPUT (default ${DEFAULT_MAX_UNUSABLE_REPLIES})`);
    expect(help).toContain(`(choices: "app", "screen", default: "${DEFAULT_AGENT_SCOPE}")`);
    expect(help).toContain(`(choices: "agent", "trace", "auto", default: "${DEFAULT_MODE}")`);
    expect(help).toContain(`(default ${DEFAULT_MODEL_IMAGE.maxWidth}x${DEFAULT_MODEL_IMAGE.maxHeight})`);
    expect(help).toContain(`(default by the app's toolkit: ${describeToolkitTyping()};`);
  });

  it('are the code’s in the README', async () => {
    const readme = flat(await readFile(README, 'utf8'));
    expect(readme).toContain(
      `Budgets (flags, defaults): \`--max-iterations\` ${DEFAULT_BUDGETS.iterations} a subtask, \`--max-model-calls\` ${DEFAULT_BUDGETS.modelCalls}, \`--max-replans\` ${DEFAULT_BUDGETS.replans}, \`--max-duration\` ${DEFAULT_BUDGETS.wallTimeMs / 1000} s`,
    );
    expect(readme).toContain(`(up to \`--step-timeout\`, default ${DEFAULT_STEP_TIMEOUT_MS / 1000} s)`);
    expect(readme).toContain(
      `A model that sends ${DEFAULT_MAX_UNUSABLE_REPLIES} unusable replies in a row (\`--max-unusable-replies\`)`,
    );
  });
});
