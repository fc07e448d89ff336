import type { UiTarsAction } from '@mime-desktop/model';
import { describe, expect, it } from 'vitest';
import { uiTarsDialect } from '../src/agent/ui-tars-dialect.ts';

const space = {
  convention: 'grid1000' as const,
  image: { width: 1280, height: 800 },
  screen: { width: 1280, height: 800 },
};
const pending = [{ variable: 'now_playing', query: 'the song shown as now playing' }];
const finished = (content?: string): UiTarsAction => ({
  name: 'finished',
  args: content === undefined ? {} : { content },
  thought: 'It plays.',
});

describe('UI-TARS finished()', () => {
  it('is an extract while a value is still to read: with its content, or read in a follow-up', () => {
    const { translate } = uiTarsDialect(space, pending);
    expect(translate(finished('Numb'))).toEqual({
      ok: true,
      value: {
        name: 'extract',
        args: {
          observation: 'It plays.',
          task_memory: null,
          variable_name: 'now_playing',
          query: 'the song shown as now playing',
          value: 'Numb',
        },
      },
    });
    expect(translate(finished())).toMatchObject({
      ok: true,
      value: { name: 'extract', args: { value: null } },
    });
  });

  it('is done otherwise, its content kept as the result', () => {
    const { translate } = uiTarsDialect(space, []);
    expect(translate(finished('Numb is playing'))).toEqual({
      ok: true,
      value: {
        name: 'done',
        args: { observation: 'It plays.', task_memory: null, result: 'Numb is playing' },
      },
    });
    expect(translate(finished())).toMatchObject({
      ok: true,
      value: { name: 'done', args: { result: null } },
    });
  });
});
