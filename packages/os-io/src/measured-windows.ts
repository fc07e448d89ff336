/**
 * Accessibility where the compositor tells no program where windows are (GNOME's mutter): toolkits
 * report extents relative to their window, so elements have no place on the screen until the caller
 * measures where their app's window is and says so ({@link UnplacedWindows}). Nothing is guessed:
 * an app nobody placed has elements without extents, as before.
 */
import type { Accessibility, OpenedAccessibility, UnplacedWindows } from './accessibility.ts';
import { openAccessibility } from './open-accessibility.ts';
import type { LogicalPoint } from './units.ts';

/**
 * Opens two views of the same trees: one placed by the origins measured so far (by app name), one
 * with every extent counted from its window; why not, when the bus is missing or did not answer.
 */
export async function openUnplacedAccessibility(env: NodeJS.ProcessEnv): Promise<OpenedAccessibility> {
  const origins = new Map<string, LogicalPoint>();
  const placed = await openAccessibility(env, async ({ name }) => origins.get(name) ?? null);
  if (!placed.ok) return placed;
  const inWindow = await openAccessibility(env, async () => ({ x: 0, y: 0 }));
  if (!inWindow.ok) {
    await placed.accessibility.close();
    return inWindow;
  }
  const a11y = placed.accessibility;
  const relative = inWindow.accessibility;
  const unplaced: UnplacedWindows = {
    findInWindow: (identity, options) => relative.find(identity, options),
    place: (app, origin) => {
      if (origin) origins.set(app, { x: Math.round(origin.x), y: Math.round(origin.y) });
      else origins.delete(app);
    },
  };
  const accessibility = {
    elementAt: (point, options) => a11y.elementAt(point, options),
    lineAt: (point) => a11y.lineAt(point),
    focused: (at) => a11y.focused(at),
    wake: () => a11y.wake(),
    find: (identity, options) => a11y.find(identity, options),
    apps: () => a11y.apps(),
    unplaced,
    close: async () => {
      await Promise.all([a11y.close(), relative.close()]);
    },
  } satisfies Accessibility;
  return { ok: true, accessibility };
}
