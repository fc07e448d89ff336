import { describe, expect, it } from 'vitest';
import { expectedTexts } from '../src/kernel/criteria.ts';
import { checksBySubtask, criteriaBySubtask, criterionValuesOf } from '../src/kernel/plan.ts';

describe("the checks of an optimized plan (ai_mime's Pass C)", () => {
  it('go to every subtask a step was made from, in order, blank ones left out', () => {
    const checks = checksBySubtask({
      inputs: [],
      constants: {},
      steps: [
        { id: 'a', source_subtask_ids: [0, 1], success_criteria: 'A folder exists.' },
        { id: 'b', source_subtask_ids: [1], success_criteria: 'The file is in it.' },
        { id: 'c', source_subtask_ids: [2], success_criteria: '  ' },
      ],
    });
    expect([...checks]).toEqual([
      [0, ['A folder exists.']],
      [1, ['A folder exists.', 'The file is in it.']],
    ]);
    expect(checksBySubtask(null).size).toBe(0);
  });
});

describe('the texts a Pass C success criterion says the app shows', () => {
  const values = {
    song_name: 'Numb',
    city: 'Rome',
    result_limit: '3',
    site_url: 'https://videos.example.test/',
  };

  it('are the values of the params and constants it names, bare or in braces, and its quoted texts filled', () => {
    // ai_mime's Pass C names variables bare.
    expect(expectedTexts('The now-playing bar shows song_name.', values)).toEqual([
      { text: 'Numb', source: 'song_name' },
    ]);
    expect(expectedTexts('The page says "Sent to {song_name} in city".', values)).toEqual([
      { text: 'Sent to Numb in Rome', source: 'quoted text' },
    ]);
    expect(expectedTexts('The results for \u201cvideo\u201d under site_url are open.', values)).toEqual([
      { text: 'video', source: 'quoted text' },
      { text: 'https://videos.example.test/', source: 'site_url' },
    ]);
  });

  it('are none for free prose, a bare count, an apostrophe or a value it may not look for', () => {
    expect(expectedTexts('A video is playing.', values)).toEqual([]);
    // "3" on a screen tells nothing.
    expect(expectedTexts('result_limit names read in display order.', values)).toEqual([]);
    expect(expectedTexts("The app's window shows the user's list.", values)).toEqual([]);
    // A sensitive param: neither its value nor a quoted text naming it is looked for.
    const withheld = new Set(['password']);
    expect(
      expectedTexts('The page says "Welcome {password}" and password is set.', values, withheld),
    ).toEqual([]);
    // A `{name}` nothing fills cannot be checked.
    expect(expectedTexts('The page says "Sent to {nobody}".', values)).toEqual([]);
  });

  it('are checked after the last subtask of their step that the workflow has, with this run’s values', () => {
    const plan = {
      inputs: [],
      constants: { app_name: 'Music' },
      steps: [
        { id: 'play', source_subtask_ids: [0, 1], success_criteria: 'The bar shows song_name in app_name.' },
        { id: 'gone', source_subtask_ids: [7], success_criteria: 'Never checked.' },
        { id: 'prose', source_subtask_ids: [0], success_criteria: 'A song plays.' },
      ],
    };
    const values = criterionValuesOf([
      { name: 'song_name', display: 'Numb', sensitive: false },
      { name: 'token', display: '{token}', sensitive: true },
    ]);
    expect(values.withheld).toEqual(new Set(['token']));
    expect([...criteriaBySubtask(plan, [0, 1], values)]).toEqual([
      [
        1,
        [
          {
            step: 'play',
            criterion: 'The bar shows song_name in app_name.',
            texts: [
              { text: 'Numb', source: 'song_name' },
              { text: 'Music', source: 'app_name' },
            ],
          },
        ],
      ],
      [0, [{ step: 'prose', criterion: 'A song plays.', texts: [] }]],
    ]);
  });
});
