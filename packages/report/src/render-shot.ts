/**
 * A screenshot scaled to fit its column, the action drawn over it; click (or Enter on it) to see it
 * full screen and click again to close. The zoom is a checkbox and CSS, so it works without scripts.
 */

import type { Size } from '@mime-desktop/schema';
import type { EmbeddedImage } from './embed-images.ts';
import { type Html, html } from './html.ts';

export interface ShotOptions {
  /** Unique in the report: names the zoom toggle. */
  id: string;
  /** The file in the run folder. */
  name: string;
  /** Undefined when the file is missing or unreadable. */
  image: EmbeddedImage | undefined;
  alt: string;
  /** The logical screen the marks are in. Default (null): the screenshot's own size. */
  screen?: Size | null;
  /** SVG marks in the coordinates of `screen`. */
  marks?: Html | null;
  caption?: Html | null;
}

export function renderShot(options: ShotOptions): Html {
  const { id, name, image, alt, marks, caption } = options;
  const captionHtml = caption && html`<span class="shot-caption">${caption}</span>`;
  if (!image) {
    return html`<div class="shot shot-missing"><span>${name}<br>not in the run folder</span>${captionHtml}</div>`;
  }
  const screen = options.screen ?? image.original;
  const ratio = image.original.width / image.original.height;
  return html`<div class="shot" style="--ar: ${ratio.toFixed(4)}">
<input type="checkbox" class="zoom" id="zoom-${id}" aria-label="Zoom ${name}">
<label for="zoom-${id}" class="shot-frame" title="${name}: click to zoom">
<span class="shot-canvas">
<img src="${image.src}" alt="${alt}" width="${image.embedded.width}" height="${image.embedded.height}">
${marks && html`<svg class="marks" viewBox="0 0 ${screen.width} ${screen.height}" preserveAspectRatio="none" aria-hidden="true">${marks}</svg>`}
${captionHtml}
</span>
<span class="shot-name">${name} · ${image.original.width}×${image.original.height}</span>
</label>
</div>`;
}

/** Shots side by side, each under its caption: the recorded frame beside the replayed one, a crop beside a crop. */
export function renderPair(shots: readonly { label: string; shot: ShotOptions }[]): Html {
  return html`<div class="pair">${shots.map(({ label, shot }) => html`<figure><figcaption>${label}</figcaption>${renderShot(shot)}</figure>`)}</div>`;
}
