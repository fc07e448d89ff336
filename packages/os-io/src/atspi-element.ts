import { type AccessibleElement, type ElementBox, isSecretElement } from '@mime-desktop/schema';
import { ACCESSIBLE, APP_ROOT, type AtspiCalls, type Node, type Ref } from './atspi-calls.ts';
import type { AtspiExtents } from './atspi-extents.ts';
import { sameRef } from './atspi-tree.ts';

/** AT-SPI relation type: labelled by. */
const LABELLED_BY = 2;
/** Roles of fields that are labelled by a label beside them rather than named. */
const FIELD_ROLES = new Set(['text', 'entry', 'password text', 'spin button', 'combo box']);

/** The label left of a field on its row, else the nearest above it; null when none stands there. */
function nearestLabel(
  field: ElementBox,
  labels: readonly { name: string; box: ElementBox }[],
): string | null {
  let best: { name: string; distance: number } | null = null;
  const middle = field.y + field.height / 2;
  for (const { name, box } of labels) {
    const sameRow = box.y <= middle && middle <= box.y + box.height && box.x + box.width <= field.x + 4;
    const above =
      box.y + box.height <= field.y + 4 && box.x < field.x + field.width && field.x < box.x + box.width;
    const distance = sameRow
      ? field.x - (box.x + box.width)
      : above
        ? field.y - (box.y + box.height) + 1000
        : Number.POSITIVE_INFINITY;
    if (distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Where an element is: itself, its app's name, its window, and the path from the window to it. */
interface Place {
  node: Node;
  app: string;
  window: AccessibleElement['window'];
  path: AccessibleElement['path'];
}

/** Reads an element as mime stores it. */
export class AtspiElementReader {
  readonly #calls: AtspiCalls;
  readonly #extents: AtspiExtents;

  constructor(calls: AtspiCalls, extents: AtspiExtents) {
    this.#calls = calls;
    this.#extents = extents;
  }

  /**
   * The element as mime stores it: identity, path from its window, states, extents (and its text).
   * `line`, the elements a lookup went down from the element's window to it, lets every level be
   * read at once (each parent is then checked, not walked up to one answer at a time).
   */
  async describe(ref: Ref, withText: boolean, line?: readonly Ref[]): Promise<AccessibleElement | null> {
    const calls = this.#calls;
    const [known, states, extents] = await Promise.all([
      line && line.length > 0 && sameRef(line[line.length - 1] as Ref, ref) ? this.#readLine(line) : null,
      calls.states(ref),
      this.#extents.of(ref),
    ]);
    const found = known ?? (await this.#walkUp(ref));
    if (!found) return null;
    const { node, app, window, path } = found;
    const label = node.name ? null : await this.#label(ref, node.role, extents);
    const element: AccessibleElement = {
      role: node.role,
      name: node.name,
      label,
      app,
      window,
      path,
      states,
      extents,
    };
    if (withText && !isSecretElement(element)) element.text = await calls.text(ref);
    return element;
  }

  /** The element's place read from its parents, one answer at a time up to its app. */
  async #walkUp(ref: Ref): Promise<Place | null> {
    const calls = this.#calls;
    const node = await calls.node(ref);
    const path: AccessibleElement['path'] = [];
    let current: Node = node;
    for (let depth = 0; depth < 64; depth += 1) {
      const parentRef = await calls.parent(current.ref);
      if (!parentRef) return null;
      const [parent, [index]] = await Promise.all([
        calls.node(parentRef),
        calls.call(current.ref, ACCESSIBLE, 'GetIndexInParent'),
      ]);
      if (parent.role === 'application') {
        return {
          node,
          app: parent.name,
          window: { role: current.role, name: current.name },
          path: path.reverse(),
        };
      }
      path.push({ role: current.role, name: current.name, index: Math.max(0, Number(index ?? 0)) });
      current = parent;
    }
    return null;
  }

  /**
   * The element's place from `line` (its window first, itself last), every level read at once; null
   * where a level's parent is not the one before it (the caller then walks up).
   */
  async #readLine(line: readonly Ref[]): Promise<Place | null> {
    const calls = this.#calls;
    const [window] = line as [Ref, ...Ref[]];
    const appRef: Ref = [window[0], APP_ROOT];
    const [app, levels] = await Promise.all([
      calls.node(appRef),
      Promise.all(
        line.map(async (ref, i) => {
          const [node, parent, [index]] = await Promise.all([
            calls.node(ref),
            calls.parent(ref),
            i === 0 ? [0] : calls.call(ref, ACCESSIBLE, 'GetIndexInParent'),
          ]);
          return { node, parent, index: Math.max(0, Number(index ?? 0)) };
        }),
      ),
    ]);
    const linked = levels.every(
      ({ parent }, i) => parent && sameRef(parent, i === 0 ? appRef : (line[i - 1] as Ref)),
    );
    const [top, ...below] = levels;
    const node = levels.at(-1)?.node;
    // Chromium answers a point with the deepest element at once, not a child: its line skips levels.
    if (!linked || app.role !== 'application' || !top || !node) return null;
    return {
      node,
      app: app.name,
      window: { role: top.node.role, name: top.node.name },
      path: below.map(({ node: n, index }) => ({ role: n.role, name: n.name, index })),
    };
  }

  /** The label a nameless field is known by: its labelled-by, else the label left of it or above it. */
  async #label(ref: Ref, role: string, extents: ElementBox | null): Promise<string | null> {
    const calls = this.#calls;
    const [relations] = await calls.call(ref, ACCESSIBLE, 'GetRelationSet').catch(() => [[]]);
    for (const [type, targets] of (relations ?? []) as [number, [string, string][]][]) {
      const target = targets[0];
      if (type !== LABELLED_BY || !target) continue;
      const name = String((await calls.prop(target, ACCESSIBLE, 'Name').catch(() => '')) ?? '');
      if (name) return name;
    }
    const parent = FIELD_ROLES.has(role) && extents ? await calls.parent(ref) : null;
    if (!parent || !extents) return null;
    const siblings = await Promise.all(
      (await calls.children(parent)).map(async (s) => {
        const node = await calls.node(s);
        return node.role === 'label' && node.name
          ? { name: node.name, box: await this.#extents.of(s) }
          : null;
      }),
    );
    return nearestLabel(
      extents,
      siblings.flatMap((l) => (l?.box ? [{ name: l.name, box: l.box }] : [])),
    );
  }
}
