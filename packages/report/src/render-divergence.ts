/** A divergence: the crop the recording expected beside the one seen live, and how alike they are. */
import type { EmbeddedImage } from './embed-images.ts';
import type { DataOf } from './event-data.ts';
import { type Html, html } from './html.ts';
import { renderShot } from './render-shot.ts';

export function renderDivergence(
  data: DataOf<'divergence'>,
  id: string,
  images: ReadonlyMap<string, EmbeddedImage>,
): Html {
  const below = data.threshold !== undefined && data.similarity < data.threshold;
  const score = html`similarity <strong class="${below ? 'bad' : ''}">${data.similarity.toFixed(2)}</strong>${data.threshold !== undefined && html` (threshold ${data.threshold.toFixed(2)})`}`;
  const crop = (name: string, side: string) =>
    html`<figure><figcaption>${side}</figcaption>${renderShot({ id: `${id}-${side}`, name, image: images.get(name), alt: `${side} crop` })}</figure>`;
  return html`<div class="divergence">
<p class="divergence-head"><span class="divergence-title">Divergence${data.step_i !== undefined && html` at step #${data.step_i}`}</span> ${score}</p>
<meter min="0" max="1" value="${data.similarity}"${data.threshold !== undefined && html` low="${data.threshold}" optimum="1"`}></meter>
<div class="divergence-pair">${crop(data.expected, 'expected')}${crop(data.observed, 'observed')}</div>
${data.reason && html`<p class="muted">${data.reason}</p>`}
</div>`;
}
