/** A divergence: the crop the recording expected beside the one seen live, and how alike they are. */

import type { RunEventData } from '@mime-desktop/schema';
import type { EmbeddedImage } from './embed-images.ts';
import { type Html, html } from './html.ts';
import { renderShot } from './render-shot.ts';

export function renderDivergence(
  data: RunEventData<'divergence'>,
  id: string,
  images: ReadonlyMap<string, EmbeddedImage>,
): Html {
  const below = data.similarity < data.threshold;
  const score = html`similarity <strong class="${below ? 'bad' : ''}">${data.similarity.toFixed(2)}</strong> (threshold ${data.threshold.toFixed(2)})`;
  const crop = (name: string, side: string) =>
    html`<figure><figcaption>${side}</figcaption>${renderShot({ id: `${id}-${side}`, name, image: images.get(name), alt: `${side} crop` })}</figure>`;
  return html`<div class="divergence">
<p class="divergence-head"><span class="divergence-title">Divergence${data.step_i !== null && html` at step #${data.step_i}`}</span> ${score}</p>
<meter min="0" max="1" value="${data.similarity}" low="${data.threshold}" optimum="1"></meter>
<div class="divergence-pair">${crop(data.expected, 'expected')}${crop(data.observed, 'observed')}</div>
</div>`;
}
