/**
 * The replay options the command line sets come from one typed map: parsing real argv through
 * commander gives the options a library caller would pass, bad values are usage errors naming the
 * flag, and every option no flag sets says where its value comes from.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addReplayOptionFlags, replayOptionFlags, replayOptionsFrom } from '../src/commands/replay-flags.ts';

const confirm = async () => 'run' as const;
const FLAGS = replayOptionFlags(confirm);

/** The options `mime replay <argv>` would pass to replay(). */
function optionsOf(argv: string[]) {
  const command = addReplayOptionFlags(
    new Command('replay').exitOverride().configureOutput({ writeErr: () => undefined }),
    FLAGS,
  );
  command.parse(argv, { from: 'user' });
  return replayOptionsFrom(FLAGS, command.opts());
}

describe('the replay flags', () => {
  it('set the options a library caller would pass', () => {
    expect(
      optionsOf([
        '--mode',
        'trace',
        '--max-duration',
        '30',
        '--max-replans',
        '0',
        '--type-delay',
        '5',
        '--agent-scope',
        'screen',
        '--image-size',
        '640x400',
        '--step-timeout',
        '2.5',
        '--max-unusable-replies',
        '2',
        '--fresh',
        '--use-examples',
        '--confirm',
        '--model',
        'qwen',
      ]),
    ).toEqual({
      mode: 'trace',
      modelConfig: { flags: { model: 'qwen' }, configFile: undefined },
      budgets: { iterations: undefined, modelCalls: undefined, replans: 0, wallTimeMs: 30_000 },
      confirmAction: confirm,
      image: { maxWidth: 640, maxHeight: 400 },
      maxUnusableReplies: 2,
      agentScope: 'screen',
      stepTimeoutMs: 2500,
      typeDelayMs: 5,
      fresh: true,
      useExamples: true,
    });
  });

  it('take --max-model-calls 0: a run that never calls a model', () => {
    expect(optionsOf(['--max-model-calls', '0']).budgets).toMatchObject({ modelCalls: 0 });
  });

  it('leave every other option to its default', () => {
    const options = optionsOf([]);
    expect(Object.keys(options).sort()).toEqual(['agentScope', 'budgets', 'mode', 'modelConfig']);
    expect(options).toMatchObject({ mode: 'auto', agentScope: 'app' });
  });

  it('refuse bad values, naming the flag', () => {
    expect(() => optionsOf(['--image-size', '640'])).toThrow(
      '--image-size must look like 1280x800, got "640"',
    );
    expect(() => optionsOf(['--type-delay', '-1'])).toThrow(/--type-delay must be a whole number from 0/);
    expect(() => optionsOf(['--mode', 'fast'])).toThrow(
      /Allowed choices are auto, trace, agent|argument 'fast' is invalid/,
    );
  });

  it('say where each option no flag sets comes from', () => {
    const elsewhere = Object.entries(FLAGS).filter(([, entry]) => 'from' in entry);
    expect(elsewhere.map(([key]) => key)).toContain('params');
    for (const [key, entry] of elsewhere)
      expect((entry as { from: string }).from.length, key).toBeGreaterThan(5);
  });
});
