/**
 * Edges: where the grey level steps, whatever the colours. A dark theme turns black-on-white into
 * light-on-dark, which every grey-level comparison reads as "all different"; the edges of its text,
 * fields and buttons stay where they were. Comparisons on a changed screen (another theme, a moved
 * or scaled window) are made on edges, and a region without edges is featureless: nothing in it can
 * be told from a blank place.
 */
import { type Box, clampBox, type RgbaImage } from './image.ts';

/**
 * A step (0-255) of a colour channel between neighbours that counts as an edge: a field's faint outline (about 40),
 * anti-aliased text and a button's border are above it; JPEG-like noise and a gradient's slope below.
 */
export const EDGE_STEP = 24;

/**
 * Regions with edges on less than this share of their pixels are featureless (an empty field's
 * inside, a blank page): a 160x64 target crossed by one straight outline has 2%, a word 10% or more.
 */
export const FEATURELESS_EDGES = 0.01;

/**
 * The largest step of a colour channel between the pixels at offsets `o` and `p`. A step in grey
 * level alone misses a focus ring of another hue at the page's brightness (Adwaita dark's blue ring
 * on dark grey: 6 grey levels, 66 in blue); the largest channel step is never below the grey step.
 */
function step(data: Uint8Array, o: number, p: number): number {
  return Math.max(
    Math.abs((data[o] ?? 0) - (data[p] ?? 0)),
    Math.abs((data[o + 1] ?? 0) - (data[p + 1] ?? 0)),
    Math.abs((data[o + 2] ?? 0) - (data[p + 2] ?? 0)),
  );
}

/** Whether the pixel at (x, y) steps by more than EDGE_STEP in a colour channel from its right or lower neighbour, or from its left or upper one. */
function edgeAt(image: RgbaImage, x: number, y: number): boolean {
  const { data, width, height } = image;
  const o = (y * width + x) * 4;
  if (x + 1 < width && step(data, o, o + 4) > EDGE_STEP) return true;
  if (y + 1 < height && step(data, o, o + width * 4) > EDGE_STEP) return true;
  if (x > 0 && step(data, o, o - 4) > EDGE_STEP) return true;
  return y > 0 && step(data, o, o - width * 4) > EDGE_STEP;
}

/** The whole-frame edge maps of recorded frames, kept while the frame lives (checks poll with the same frames). */
const cached = new WeakMap<RgbaImage, RgbaImage>();

/**
 * The image's edges as a black and white image of the same size: white (255) where a colour channel
 * steps by more than EDGE_STEP to a neighbour, black elsewhere. Mean levels of its cells are edge
 * densities, alike under another theme (light-on-dark has its edges where dark-on-light had them).
 * Only `within` is computed (black elsewhere); without it, the whole image, kept for the next call.
 */
export function edgeImage(image: RgbaImage, within?: Box): RgbaImage {
  if (!within) {
    const known = cached.get(image);
    if (known) return known;
  }
  const area = within ? clampBox(within, image) : { x: 0, y: 0, width: image.width, height: image.height };
  const data = new Uint8Array(image.width * image.height * 4);
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) {
      const o = (y * image.width + x) * 4;
      const v = edgeAt(image, x, y) ? 255 : 0;
      data[o] = v;
      data[o + 1] = v;
      data[o + 2] = v;
      data[o + 3] = 255;
    }
  }
  const edges = { width: image.width, height: image.height, data };
  if (!within) cached.set(image, edges);
  return edges;
}

/** The share (0..1) of a region's pixels on an edge: 0 for a flat area, 0.1 or more for text. */
export function edgeShare(image: RgbaImage, box: Box): number {
  const area = clampBox(box, image);
  const total = area.width * area.height;
  if (total <= 0) return 0;
  let edges = 0;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) if (edgeAt(image, x, y)) edges += 1;
  }
  return edges / total;
}

/** The smallest box holding a region's edges, `pad` pixels wider each side (clamped); null when it has none. */
export function edgeBounds(image: RgbaImage, box: Box, pad = 4): Box | null {
  const area = clampBox(box, image);
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = -1;
  let y1 = -1;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) {
      if (!edgeAt(image, x, y)) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = y;
    }
  }
  if (x1 < 0) return null;
  const left = Math.max(area.x, x0 - pad);
  const top = Math.max(area.y, y0 - pad);
  return {
    x: left,
    y: top,
    width: Math.min(area.x + area.width, x1 + pad + 1) - left,
    height: Math.min(area.y + area.height, y1 + pad + 1) - top,
  };
}

/**
 * How alike two same-sized regions are by their edges, 0..1: the share of the edges of both that have
 * an edge in the other within a pixel. Blank on both sides is 1; edges on one side only, 0. Unlike
 * grey levels, this does not count a blank page as alike a window's blank inside.
 */
export function edgeSimilarity(a: RgbaImage, boxA: Box, b: RgbaImage, boxB: Box): number {
  const ra = clampBox(boxA, a);
  const rb = clampBox(boxB, b);
  const width = Math.min(ra.width, rb.width);
  const height = Math.min(ra.height, rb.height);
  // A whole frame's edges are kept (a recorded frame is compared again at every poll).
  const whole = (image: RgbaImage, r: Box) => r.width === image.width && r.height === image.height;
  const ea = whole(a, ra) ? edgeImage(a) : edgeImage(a, ra);
  const eb = whole(b, rb) ? edgeImage(b) : edgeImage(b, rb);
  const on = (e: RgbaImage, x: number, y: number) => (e.data[(y * e.width + x) * 4] ?? 0) > 0;
  const near = (e: RgbaImage, r: Box, x: number, y: number) => {
    for (let dy = -1; dy <= 1; dy += 1) {
      for (let dx = -1; dx <= 1; dx += 1) {
        const px = x + dx;
        const py = y + dy;
        if (px >= 0 && py >= 0 && px < width && py < height && on(e, r.x + px, r.y + py)) return true;
      }
    }
    return false;
  };
  let edges = 0;
  let matched = 0;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (on(ea, ra.x + x, ra.y + y)) {
        edges += 1;
        if (near(eb, rb, x, y)) matched += 1;
      }
      if (on(eb, rb.x + x, rb.y + y)) {
        edges += 1;
        if (near(ea, ra, x, y)) matched += 1;
      }
    }
  }
  return edges === 0 ? 1 : matched / edges;
}

/** Whether a region holds too few edges to be told from a blank place (see FEATURELESS_EDGES). */
export function isFeatureless(image: RgbaImage, box: Box): boolean {
  return edgeShare(image, box) < FEATURELESS_EDGES;
}
