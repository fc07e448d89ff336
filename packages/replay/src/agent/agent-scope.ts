/**
 * Where the agent may act: inside the windows of the apps the workflow is about (its setup window,
 * the windows its recording touched), told apart by their WM_CLASS. A click, drag, scroll or move
 * outside them, or typing and keys while the focus is outside them, is refused as the turn's result
 * and the model is told why; `--agent-scope screen` lifts it. A workflow that names no window (no
 * setup, no accessibility identities) leaves the whole screen to the agent, and the run says so.
 */
import {
  describeWindowQuery,
  type FoundWindow,
  type LogicalPoint,
  UnsupportedPlatformError,
  type WindowQuery,
  windowMatches,
} from '@mime-desktop/os-io';
import type { Workflow } from '@mime-desktop/schema';
import type { ResolvedAction } from '../actions/computer-action.ts';

/** `app` (the default): the workflow's app windows only; `screen`: anywhere. */
export type AgentScopeSetting = 'app' | 'screen';

/** Default of `ReplayOptions.agentScope`. */
export const DEFAULT_AGENT_SCOPE: AgentScopeSetting = 'app';

/** What the desktop tells about windows (the `Desktop` seam). */
export interface WindowLookup {
  windowAt(point: LogicalPoint): Promise<FoundWindow | null>;
  focusedWindow(): Promise<FoundWindow | null>;
  pointerPosition(): Promise<LogicalPoint>;
}

/** The visible windows of the run's desktop that a query matches (on its display, not this process's). */
export function windowsOf(desktop: {
  windows(): Promise<FoundWindow[]>;
}): (query: WindowQuery) => Promise<FoundWindow[]> {
  return async (query) => (await desktop.windows()).filter((window) => windowMatches(query, window));
}

/** The windows the workflow names: its setup window's query and its recorded windows' titles. */
function namedWindows(workflow: Workflow): { setup: WindowQuery | null; titles: Set<string> } {
  const titles = new Set<string>();
  for (const step of workflow.plan.subtasks.flatMap((s) => s.steps)) {
    const name = step.target.element?.window.name;
    if (name) titles.add(name);
  }
  return { setup: workflow.setup?.window ?? null, titles };
}

const describeWindow = (window: FoundWindow | null) =>
  window
    ? `"${window.title || '(untitled)'}" (class ${window.classes.at(-1) ?? 'unknown'})`
    : 'the bare desktop';

export class AgentScope {
  /** WM_CLASS names (instance and class) of the windows in scope. */
  readonly classes: ReadonlySet<string>;
  /** Their class names, for messages (an instance name may carry a profile path). */
  readonly names: readonly string[];
  readonly #setup: WindowQuery | null;

  /** The scope of `windows`' apps, and of any window `setup.class` matches. */
  constructor(windows: readonly FoundWindow[], setup: WindowQuery | null = null) {
    this.classes = new Set(windows.flatMap((w) => w.classes).filter(Boolean));
    this.names = [...new Set(windows.map((w) => w.classes.at(-1)).filter((c): c is string => Boolean(c)))];
    this.#setup = setup;
  }

  /**
   * The scope of a run: null (the whole screen) with `screen`, or when the workflow names no window
   * that is open now. `find` lists the windows that match a query (the desktop's: {@link windowsOf}).
   */
  static async resolve(
    workflow: Workflow,
    setting: AgentScopeSetting,
    find: (query: WindowQuery) => Promise<FoundWindow[]>,
    desktop: WindowLookup | null = null,
  ): Promise<{ scope: AgentScope | null; reason: string }> {
    if (setting === 'screen') return { scope: null, reason: 'the whole screen (--agent-scope screen)' };
    if (process.platform !== 'linux') {
      return { scope: null, reason: 'the whole screen: telling app windows apart works on Linux/X11 only' };
    }
    // A desktop that tells no program which window is under a point (GNOME's mutter) cannot keep the
    // agent inside the app's windows: said, not pretended.
    const unsupported = await desktop?.windowAt({ x: 0, y: 0 }).then(
      () => null,
      (error: unknown) => (error instanceof UnsupportedPlatformError ? error.message : null),
    );
    if (unsupported) {
      return {
        scope: null,
        reason: `the whole screen: this desktop cannot keep it to the app (${unsupported})`,
      };
    }
    const { setup, titles } = namedWindows(workflow);
    const found = [
      ...(setup ? await find(setup) : []),
      ...(await Promise.all([...titles].map((title) => find({ title: `^${escapeRegExp(title)}$` })))).flat(),
    ];
    const scope = new AgentScope(found, setup);
    if (scope.classes.size === 0) {
      return {
        scope: null,
        reason:
          setup || titles.size > 0
            ? `the whole screen: none of the workflow's windows (${[setup && describeWindowQuery(setup), ...[...titles].map((t) => `"${t}"`)].filter(Boolean).join(', ')}) is open`
            : 'the whole screen: the workflow names no app window (give it a setup with its window)',
      };
    }
    return { scope, reason: `windows of class ${scope.names.join(', ')}` };
  }

  /** Whether a window belongs to the workflow's apps. */
  holds(window: FoundWindow | null): boolean {
    if (!window) return false;
    if (window.classes.some((c) => this.classes.has(c))) return true;
    const setup = this.#setup;
    return (
      setup !== null &&
      setup.class !== undefined &&
      window.classes.some((c) => new RegExp(setup.class as string, 'u').test(c))
    );
  }

  /** Why `action` may not run here, or null when it may. */
  async refusal(action: ResolvedAction, desktop: WindowLookup): Promise<string | null> {
    const outside = `outside the windows of the app this task is about (class ${this.names.join(', ')}); act inside them`;
    const points = pointsOf(action);
    if (action.action === 'scroll' && action.point === null) points.push(await desktop.pointerPosition());
    for (const point of points) {
      const window = await desktop.windowAt(point);
      if (!this.holds(window)) return `(${point.x}, ${point.y}) is on ${describeWindow(window)}, ${outside}`;
    }
    if (action.action === 'type' || action.action === 'key') {
      const window = await desktop.focusedWindow();
      if (!this.holds(window)) {
        return `the keyboard focus is on ${describeWindow(window)}, ${outside} (click into the app first)`;
      }
    }
    return null;
  }
}

function pointsOf(action: ResolvedAction): LogicalPoint[] {
  switch (action.action) {
    case 'left_click_drag':
      return [action.point, action.endPoint];
    case 'scroll':
      return action.point ? [action.point] : [];
    case 'left_click':
    case 'double_click':
    case 'right_click':
    case 'middle_click':
    case 'mouse_move':
      return [action.point];
    case 'type':
    case 'key':
    case 'wait':
      return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
