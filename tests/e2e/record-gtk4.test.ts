/**
 * A GTK 4 app recorded on X11 as a person records it (`mime record --launch`, presses of 80-150 ms,
 * typing at 40-80 ms a key): GTK 4 reports its elements' extents relative to its window only, and
 * the recorder stores each action's element with its box on the screen, where the app drew it. The
 * form (fixtures/apps/gtk4-form) writes where GTK laid its fields out in its window.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ElementBox } from '@mime-desktop/schema';
import { accessibleAppEnv } from '@mime-desktop/test-support/accessible-element';
import { tempDir, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { clientArea, gtkAppEnv, waitForWindowTitle } from '@mime-desktop/test-support/gtk-apps';
import { asPerson, recordByInput } from '@mime-desktop/test-support/record-by-input';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';

const FORM = join(REPO_ROOT, 'fixtures', 'apps', 'gtk4-form', 'form.py');

interface Action {
  action_type: string;
  action_details: { text?: string };
  element?: { role: string; path: Array<{ index: number }>; extents: ElementBox | null };
}

const centre = (box: ElementBox) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });

describe('a GTK 4 form recorded on X11', () => {
  it('stores its fields with their boxes on the screen, where they are drawn', async () => {
    const home = await tempDir('mime-rec-gtk4-');
    const state = join(await tempDir('mime-rec-gtk4-state-'), 'state.json');
    const drawn: Record<'name' | 'city', ElementBox> = { name: NO_BOX, city: NO_BOX };
    const session = await withDesktop({ app: false, windowManager: true }, async (harness) => {
      // As the matrix starts it: from the harness's GTK environment, which turns GTK 4's AT-SPI off.
      const env = accessibleAppEnv({ ...(await gtkAppEnv(harness)), GSK_RENDERER: 'cairo' });
      return recordByInput(
        harness,
        home,
        'gtk 4 form',
        async (recorded) => {
          const id = await waitForWindowTitle(harness, '^gtk4-form');
          const layout = await waitUntil(
            async (): Promise<Record<'name' | 'city', ElementBox> | null> =>
              JSON.parse(await readFile(state, 'utf8').catch(() => '{}')).layout ?? null,
            { what: 'the form wrote its layout' },
          );
          const client = await clientArea(harness, id);
          for (const key of ['name', 'city'] as const) {
            drawn[key] = { ...layout[key], x: client.x + layout[key].x, y: client.y + layout[key].y };
          }
          const person = asPerson(harness);
          const at = (box: ElementBox) => centre(box);
          await person.click(Math.round(at(drawn.name).x), Math.round(at(drawn.name).y));
          await recorded(1);
          await person.type('Ann Lee');
          await sleep(300); // a person's pause before the next field
          await person.click(Math.round(at(drawn.city).x), Math.round(at(drawn.city).y));
          await recorded(3);
          await person.type('Paris');
          await sleep(300);
          await person.press('Tab');
          await recorded(5);
        },
        { launch: `/usr/bin/python3 ${FORM} --state ${state}`, env },
      );
    });
    const actions = (await readFile(join(home, 'recordings', session, 'manifest.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Action)
      .filter((a) => a.action_type !== null);
    expect(actions.map((a) => a.action_type)).toEqual(['click', 'type', 'click', 'type', 'key']);
    const [clickName, typedName, clickCity, typedCity] = actions;
    for (const [action, field, index] of [
      [clickName, drawn.name, 1],
      [typedName, drawn.name, 1],
      [clickCity, drawn.city, 3],
      [typedCity, drawn.city, 3],
    ] as const) {
      expect(action?.element).toMatchObject({ role: 'text box', path: [{ index: 0 }, { index }] });
      const box = action?.element?.extents;
      if (!box) throw new Error(`no box stored for the ${action?.action_type} into field ${index}`);
      // GTK reports a field's inside (past its border and padding): the drawn field's middle.
      expect(Math.abs(centre(box).x - centre(field).x)).toBeLessThanOrEqual(2);
      expect(Math.abs(centre(box).y - centre(field).y)).toBeLessThanOrEqual(2);
    }
    expect(typedCity?.element).toMatchObject({ text: 'Paris' });
  }, 120_000);
});

const NO_BOX: ElementBox = { x: 0, y: 0, width: 0, height: 0 };
