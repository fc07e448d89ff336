/**
 * The CI slice of the replay matrix (`pnpm bench matrix` runs it whole): the form page in Chromium and
 * in Firefox, and a GTK 4 form (with an accessibility tree; GTK 4's counted from its window), and a Tk
 * form (none), each recorded by input at a person's pace, reflected without a model, and replayed
 * with new values without the model (`--max-model-calls 0`). The outcome is read outside mime (the
 * page's title, the form's state file): a changed window is a true success in auto (the GTK 4 form
 * recorded light and replayed in Adwaita dark), an app that drops the City value is an honest
 * divergence, never a success.
 */
import { join } from 'node:path';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import {
  CONDITIONS,
  type Condition,
  type MatrixApp,
  recordAndReflect,
  replayCell,
} from '@mime-desktop/test-support/matrix';
import { chromiumForm, firefoxForm, gtk4Form, tkForm } from '@mime-desktop/test-support/matrix-apps';
import { describe, expect, it } from 'vitest';

const condition = (name: string) => CONDITIONS.find((c) => c.name === name) as Condition;
const tempDirs = useTempDirs();

describe.each([
  [chromiumForm.name, chromiumForm, 'moved', 'trace'],
  // Firefox builds a page's tree only once asked: at record (its first click) and at replay.
  [firefoxForm.name, firefoxForm, 'moved', 'trace'],
  [tkForm.name, tkForm, 'as recorded', 'auto'],
  [gtk4Form.name, gtk4Form, 'dark', 'trace'],
] as const)('the matrix on the %s', (_, app: MatrixApp, changed, dropMode) => {
  it(`is a true success ${changed} in auto, an honest divergence in ${dropMode} where the app drops a value`, {
    timeout: 180_000,
  }, async () => {
    const missing = await app.missing();
    expect(missing, `${app.name} must be installed (./setup.sh)`).toBeNull();
    const work = await tempDirs('mime-matrix-');
    const workflow = await recordAndReflect(app, join(work, 'home'), work);

    const replayed = await replayCell(app, workflow, condition(changed), 'auto', work);
    expect(replayed.verdict, `${replayed.reason} (the app holds ${replayed.saw})`).toBe('true success');
    expect(replayed.saw).toContain('Bob Jones');

    const dropped = await replayCell(app, workflow, condition('drops a value'), dropMode, work);
    expect(dropped.saw).toBe(JSON.stringify({ name: 'Bob Jones', city: '' }));
    expect(dropped.verdict, dropped.reason).toBe('honest divergence');
    expect(dropped.reason).toContain('MIME_REPLAY_DIVERGENCE');
  });
});
