/**
 * Where a window is, measured, on a desktop that tells no program (GNOME's mutter), so its elements'
 * window-relative extents can be placed on the screen. Nothing is guessed: a DISTINCTIVE recorded
 * element (its recorded look found once on the live screen, strongly and with no second place nearly
 * as good) gives the origin (its match's place minus its extents in its window), and the origin is
 * accepted only once a SECOND recorded element, placed by it, shows its recorded look there. Checked
 * again before each use (a mark of the window still shown at its place), measured anew when that fails.
 */
import type { UnplacedWindows } from '@mime-desktop/os-io';
import { type AccessibleElement, describeElement, type ElementBox } from '@mime-desktop/schema';
import { crop, findTemplate, isFeatureless, type RgbaImage, similarity } from '@mime-desktop/vision';

type Point = { x: number; y: number };

/** A recorded element with its look: its recorded extents cut from the frame before its step. */
export interface Anchor {
  element: AccessibleElement;
  look: RgbaImage;
  /** The recorded frame the look was cut from: two elements' looks together are cut from it. */
  frame?: RgbaImage;
}

/** How many distinctive elements are paired when none is unique alone (6 pairs at most). */
const PAIRED = 4;

/**
 * How sure a measurement must be: the anchor's match score (normalized correlation at its recorded
 * size) and its lead over the best other place; a confirming element's likeness at its mapped place
 * (share of alike pixels), and how far a live element's size may differ from its recorded one, px.
 */
export const PLACING = { score: 0.9, margin: 0.1, confirm: 0.9, sizeTolerance: 2 } as const;

interface Placement {
  window: string;
  origin: Point;
  /** The window's elements as the screen showed them once measured (see {@link WindowPlacer.marks}). */
  marks: Anchor[];
  reason: string;
}

const placed = (box: ElementBox | null): box is ElementBox => box !== null && box.width > 0 && box.height > 0;

const sameWindow = (a: AccessibleElement, b: AccessibleElement) =>
  a.app === b.app && a.window.role === b.window.role && a.window.name === b.window.name;

/**
 * The element's extents in its window, when exactly one live element is the recorded one and its size
 * is `size` (its recorded extents by default; null: any size).
 */
async function extentsInWindow(
  windows: UnplacedWindows,
  element: AccessibleElement,
  size: { width: number; height: number } | null | undefined = element.extents,
): Promise<ElementBox | null> {
  const found = (await windows.findInWindow(element).catch(() => [])).filter((e) => placed(e.extents));
  const [live] = found;
  if (found.length !== 1 || !live?.extents) return null;
  if (size === null) return live.extents;
  if (!size) return null;
  const near = (a: number, b: number) => Math.abs(a - b) <= PLACING.sizeTolerance;
  return near(live.extents.width, size.width) && near(live.extents.height, size.height) ? live.extents : null;
}

const whole = (image: RgbaImage) => ({ x: 0, y: 0, width: image.width, height: image.height });

/** How alike the live screen is, at `box`, to the recorded look (0 where the box leaves the screen or sizes differ). */
function likeness(live: RgbaImage, box: ElementBox, look: RgbaImage): number {
  const inside =
    box.x >= 0 && box.y >= 0 && box.x + look.width <= live.width && box.y + look.height <= live.height;
  return inside
    ? similarity(crop(live, { x: box.x, y: box.y, width: look.width, height: look.height }), look)
    : 0;
}

export class WindowPlacer {
  readonly #windows: UnplacedWindows;
  readonly #anchors: () => Promise<Anchor[]>;
  /** The measured origin of each app's window (by app name: the os-io places an app's elements). */
  readonly #placements = new Map<string, Placement>();

  /** `anchors`: the workflow's recorded elements with their looks (asked once, when first needed). */
  constructor(windows: UnplacedWindows, anchors: () => Promise<Anchor[]>) {
    this.#windows = windows;
    let all: Promise<Anchor[]> | undefined;
    this.#anchors = () => {
      all ??= anchors();
      return all;
    };
  }

  /**
   * Places the window `element` is in: its measured origin, kept while a mark of it still shows there,
   * else measured again. Returns how it was measured, or why it could not be (its elements then stay
   * unplaced, and the ladder goes on by pixels).
   */
  async place(element: AccessibleElement, live: RgbaImage): Promise<{ ok: boolean; reason: string }> {
    const window = `${element.window.role}\u0000${element.window.name}`;
    const kept = this.#placements.get(element.app);
    if (kept && kept.window === window && (await this.#stillThere(kept, live))) {
      return { ok: true, reason: kept.reason };
    }
    this.#placements.delete(element.app);
    this.#windows.place(element.app, null);
    const measured = await this.#measure(element, live);
    if (!measured.ok) return measured;
    this.#placements.set(element.app, { ...measured.placement, window });
    this.#windows.place(element.app, measured.placement.origin);
    return { ok: true, reason: measured.placement.reason };
  }

  /** Whether the window is still where it was measured: a mark of it still shows at its place. */
  async #stillThere(placement: Placement, live: RgbaImage): Promise<boolean> {
    for (const mark of placement.marks) {
      const inWindow = await extentsInWindow(this.#windows, mark.element, mark.look);
      if (!inWindow) continue;
      const at = { ...inWindow, x: inWindow.x + placement.origin.x, y: inWindow.y + placement.origin.y };
      if (likeness(live, at, mark.look) >= PLACING.confirm) return true;
    }
    return false;
  }

  /**
   * The window's recorded elements as the live screen shows them at the measured origin, those with
   * edges: what tells later that the window has not moved (a field typed into no longer looks as
   * recorded, a button beside it still does).
   */
  async #marks(ofWindow: readonly Anchor[], origin: Point, live: RgbaImage): Promise<Anchor[]> {
    const marks: Anchor[] = [];
    for (const { element } of ofWindow) {
      const inWindow = await extentsInWindow(this.#windows, element, null);
      if (!inWindow) continue;
      const box = { ...inWindow, x: inWindow.x + origin.x, y: inWindow.y + origin.y };
      if (box.x < 0 || box.y < 0 || box.x + box.width > live.width || box.y + box.height > live.height)
        continue;
      const look = crop(live, box);
      if (!isFeatureless(look, whole(look))) marks.push({ element, look });
    }
    return marks;
  }

  async #measure(
    element: AccessibleElement,
    live: RgbaImage,
  ): Promise<{ ok: true; placement: Omit<Placement, 'window'> } | { ok: false; reason: string }> {
    const ofWindow = (await this.#anchors()).filter((a) => sameWindow(a.element, element));
    const distinctive = ofWindow.filter((a) => !isFeatureless(a.look, whole(a.look)));
    const window = `window '${element.window.name}' of ${element.app}`;
    // Each distinctive element's recorded look, found at its recorded size; the clearest lead first.
    const found = await Promise.all(
      distinctive.map(async (anchor) => ({
        anchor,
        match: await findTemplate(live, anchor.look, { scales: [1] }),
      })),
    );
    const strong = found
      .flatMap(({ anchor, match }) => (match && match.score >= PLACING.score ? [{ anchor, match }] : []))
      .sort((a, b) => b.match.margin - a.match.margin);
    const seen = found
      .map(({ anchor, match }) =>
        match
          ? `${describeElement(anchor.element)} ${match.score.toFixed(2)}, lead ${match.margin.toFixed(2)}`
          : `${describeElement(anchor.element)} not found`,
      )
      .join('; ');
    for (const { anchor, match } of strong) {
      if (match.margin < PLACING.margin) break;
      const inWindow = await extentsInWindow(this.#windows, anchor.element);
      if (!inWindow) continue;
      const origin = { x: match.box.x - inWindow.x, y: match.box.y - inWindow.y };
      for (const other of ofWindow) {
        if (other === anchor) continue;
        const box = await extentsInWindow(this.#windows, other.element);
        if (!box) continue;
        const alike = likeness(live, { ...box, x: box.x + origin.x, y: box.y + origin.y }, other.look);
        if (alike < PLACING.confirm) continue;
        return {
          ok: true,
          placement: {
            origin,
            marks: await this.#marks(ofWindow, origin, live),
            reason: `the ${window} measured at (${origin.x}, ${origin.y}): its ${describeElement(anchor.element)} found by its recorded look (${match.score.toFixed(2)}, lead ${match.margin.toFixed(2)}), its ${describeElement(other.element)} shown there as recorded (${Math.round(alike * 100)}%)`,
          },
        };
      }
    }
    const paired = await this.#measureByPair(distinctive.slice(0, PAIRED), live, window);
    if (paired)
      return { ok: true, placement: { ...paired, marks: await this.#marks(ofWindow, paired.origin, live) } };
    const why =
      distinctive.length === 0
        ? 'none of its recorded elements is distinctive (all featureless): targets are found by pixels'
        : `no recorded element was found strongly (${PLACING.score}) and uniquely (lead ${PLACING.margin}), then confirmed by a second one, alone or with another (${seen})`;
    return { ok: false, reason: `the place of the ${window} is unknown (mutter does not tell): ${why}` };
  }

  /**
   * Two elements that each look like another place (two empty fields of a form) are found TOGETHER:
   * their recorded looks and what lies between them, cut from one recorded frame, make a look that
   * shows once. Accepted as one element alone is: strongly, uniquely, then each shown at its place.
   */
  async #measureByPair(
    anchors: readonly Anchor[],
    live: RgbaImage,
    window: string,
  ): Promise<{ origin: Point; reason: string } | null> {
    for (const [k, a] of anchors.entries()) {
      for (const b of anchors.slice(k + 1)) {
        const [from, to] = [a.element.extents, b.element.extents];
        if (!a.frame || !placed(from) || !placed(to)) continue;
        const union = {
          x: Math.min(from.x, to.x),
          y: Math.min(from.y, to.y),
          width: Math.max(from.x + from.width, to.x + to.width) - Math.min(from.x, to.x),
          height: Math.max(from.y + from.height, to.y + to.height) - Math.min(from.y, to.y),
        };
        if (union.x + union.width > a.frame.width || union.y + union.height > a.frame.height) continue;
        const match = await findTemplate(live, crop(a.frame, union), { scales: [1] });
        if (!match || match.score < PLACING.score || match.margin < PLACING.margin) continue;
        const [aIn, bIn] = await Promise.all([
          extentsInWindow(this.#windows, a.element),
          extentsInWindow(this.#windows, b.element),
        ]);
        if (!aIn || !bIn) continue;
        const origin = {
          x: match.box.x + (from.x - union.x) - aIn.x,
          y: match.box.y + (from.y - union.y) - aIn.y,
        };
        const shown = (inWindow: ElementBox, anchor: Anchor) =>
          likeness(live, { ...inWindow, x: inWindow.x + origin.x, y: inWindow.y + origin.y }, anchor.look);
        const alike = Math.min(shown(aIn, a), shown(bIn, b));
        if (alike < PLACING.confirm) continue;
        return {
          origin,
          reason: `the ${window} measured at (${origin.x}, ${origin.y}): its ${describeElement(a.element)} and ${describeElement(b.element)} found together by their recorded look (${match.score.toFixed(2)}, lead ${match.margin.toFixed(2)}), each shown there as recorded (${Math.round(alike * 100)}%)`,
        };
      }
    }
    return null;
  }
}
