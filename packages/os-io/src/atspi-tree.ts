import type { AccessibleElement } from '@mime-desktop/schema';
import {
  ACCESSIBLE,
  APP_ROOT,
  type AtspiCalls,
  COMPONENT,
  type Node,
  NULL_PATH,
  REGISTRY,
  type Ref,
  SCREEN,
} from './atspi-calls.ts';

/** The registry's root: its children are the apps. */
export const ROOT: Ref = [REGISTRY, APP_ROOT];

/** A top-level window, with its app's name. */
export interface AppWindow {
  app: string;
  window: Node;
}

/** The top-level windows of every app, with their app's name. */
export async function topWindows(calls: AtspiCalls): Promise<AppWindow[]> {
  const apps = await calls.children(ROOT);
  const perApp = await Promise.all(
    apps.map(async (app) => {
      const [name, windows] = await Promise.all([
        calls.prop(app, ACCESSIBLE, 'Name').catch(() => ''),
        calls.children(app).catch(() => [] as Ref[]),
      ]);
      const nodes = await Promise.all(windows.map((w) => calls.node(w).catch(() => null)));
      return nodes.flatMap((window) => (window ? [{ app: String(name ?? ''), window }] : []));
    }),
  );
  return perApp.flat();
}

/** Whether a subtree is looked through, by its root's states. */
export type ThroughStates = (states: readonly string[]) => boolean;

/** Subtrees the screen shows (their root `showing`). */
export const SHOWING: ThroughStates = (states) => states.includes('showing');
/** Subtrees of toolkits that set no `showing` (GTK 4.8): those `visible`. */
export const VISIBLE: ThroughStates = (states) => states.includes('showing') || states.includes('visible');

/** Breadth-first under `root` (excluded), at most `max` nodes, only through subtrees `through` passes. */
export async function searchTree(
  calls: AtspiCalls,
  root: Ref,
  max: number,
  match: (node: Node) => Promise<boolean>,
  through: ThroughStates = SHOWING,
): Promise<Node[]> {
  const found: Node[] = [];
  let level = await calls.children(root).catch(() => [] as Ref[]);
  let seen = 0;
  while (level.length > 0 && seen < max) {
    const batch = level.slice(0, max - seen);
    seen += batch.length;
    const nodes = await Promise.all(
      batch.map(async (ref) => {
        const [node, states] = await Promise.all([calls.node(ref), calls.states(ref)]);
        return { node, showing: through(states), matched: await match(node) };
      }),
    ).catch(() => []);
    found.push(...nodes.filter((n) => n.matched).map((n) => n.node));
    const next = await Promise.all(
      nodes.filter((n) => n.showing).map((n) => calls.children(n.node.ref).catch(() => [] as Ref[])),
    );
    level = next.flat();
  }
  return found;
}

/** Follows the recorded path from a window: at each level the children with the recorded role and name. */
export async function followPath(
  calls: AtspiCalls,
  window: Ref,
  path: AccessibleElement['path'],
): Promise<Ref[]> {
  let level: Ref[] = [window];
  for (const step of path) {
    const next: Ref[] = [];
    for (const ref of level) {
      const children = await calls.children(ref);
      const nodes = await Promise.all(children.map((c) => calls.node(c)));
      const same = nodes.filter((n) => n.role === step.role && n.name === step.name);
      const atIndex = children[step.index];
      const exact = same.find((n) => atIndex && n.ref[1] === atIndex[1] && n.ref[0] === atIndex[0]);
      next.push(...(exact ? [exact.ref] : same.map((n) => n.ref)));
    }
    if (next.length === 0 || next.length > 16) return [];
    level = next;
  }
  return level;
}

/** Whether the window names an element under its middle (screen coordinates). */
async function answersAtMiddle(calls: AtspiCalls, window: Ref): Promise<boolean> {
  const box = await calls.reportedExtents(window);
  if (!box || box.width <= 0 || box.height <= 0) return true;
  const middle = [Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2)];
  const [child] = await calls
    .call(window, COMPONENT, 'GetAccessibleAtPoint', 'iiu', [...middle, SCREEN])
    .catch(() => [null]);
  return Array.isArray(child) && child[1] !== NULL_PATH;
}

/** Roles of a web page's document. */
export const PAGE_ROLES = new Set(['document web', 'document frame']);
/** Pause between two walks of a tree being built, ms. */
const WAKE_POLL_MS = 100;

/**
 * Asks for the tree under `window` (at most `max` nodes a walk) until its app has built it: a page's
 * document holds elements, or the tree stopped growing over three walks, or `deadline` (a
 * `performance.now()` time) passed. Firefox builds a page's tree only once asked, after the answer.
 */
export async function wakeTree(calls: AtspiCalls, window: Ref, max: number, deadline: number): Promise<void> {
  const sizes: number[] = [];
  for (;;) {
    const nodes = await searchTree(calls, window, max, async () => true);
    const pages = nodes.filter((n) => PAGE_ROLES.has(n.role));
    const built = await Promise.all(
      pages.map((p) =>
        calls.children(p.ref).then(
          (c) => c.length > 0,
          () => false,
        ),
      ),
    );
    sizes.push(nodes.length);
    const steady = sizes.length >= 3 && sizes.slice(-3).every((n) => n === nodes.length);
    // Firefox also learns its elements' places only once asked for one: the window's middle.
    const answers = await answersAtMiddle(calls, window);
    if (((built.includes(true) || steady) && answers) || performance.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, WAKE_POLL_MS));
  }
}

/** Whether two refs name the same element. */
export const sameRef = (a: Ref, b: Ref) => a[0] === b[0] && a[1] === b[1];

/** The top-level windows whose state says `active` (none where no toolkit says it). */
export async function activeWindows(calls: AtspiCalls, windows: AppWindow[]): Promise<Ref[]> {
  const states = await Promise.all(windows.map((w) => calls.states(w.window.ref).catch((): string[] => [])));
  return windows.filter((_, i) => states[i]?.includes('active')).map((w) => w.window.ref);
}

/**
 * Whether `ref` lies in a window other than the active one, where a toolkit tells which is active.
 * Chromium keeps `focused` on a page's field while another app's dialog is active, until that
 * dialog's own focus event comes: the field does not get the keys then.
 */
export async function inInactiveWindow(calls: AtspiCalls, ref: Ref): Promise<boolean> {
  const windows = await topWindows(calls);
  const active = await activeWindows(calls, windows);
  if (active.length === 0) return false;
  const ownApp = windows.filter((w) => w.window.ref[0] === ref[0]);
  if (!active.some((w) => w[0] === ref[0])) return true;
  if (ownApp.every((w) => active.some((a) => sameRef(a, w.window.ref)))) return false;
  // One of the app's windows is active: the element's own window says whether it is that one.
  let current: Ref | null = ref;
  for (let depth = 0; current && depth < 64; depth += 1) {
    const here: Ref = current;
    if (ownApp.some((w) => sameRef(w.window.ref, here))) return !active.some((a) => sameRef(a, here));
    current = await calls.parent(here).catch(() => null);
  }
  return false;
}
