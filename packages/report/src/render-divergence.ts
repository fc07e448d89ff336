/**
 * A divergence: the crop the recording expected beside the one seen live, how alike they are, and the
 * whole recorded and live frames.
 */

import type { RunEventData } from '@mime-desktop/schema';
import { formatStep } from '@mime-desktop/schema';
import type { EmbeddedImage } from './embed-images.ts';
import { type Html, html } from './html.ts';
import { renderPair } from './render-shot.ts';

export function renderDivergence(
  data: RunEventData<'divergence'>,
  id: string,
  images: ReadonlyMap<string, EmbeddedImage>,
): Html {
  const below = data.similarity < data.threshold;
  const score = html`similarity <strong class="${below ? 'bad' : ''}">${data.similarity.toFixed(2)}</strong> (threshold ${data.threshold.toFixed(2)})`;
  const shot = (name: string, side: string) => ({
    label: side,
    shot: { id: `${id}-${side.replace(' ', '-')}`, name, image: images.get(name), alt: `${side}` },
  });
  return html`<div class="divergence">
<p class="divergence-head"><span class="divergence-title">Divergence${data.step_i !== null && html` at ${formatStep(data.step_i)}`}</span> ${score}</p>
<meter min="0" max="1" value="${data.similarity}" low="${data.threshold}" optimum="1"></meter>
${renderPair([shot(data.expected, 'expected'), shot(data.observed, 'observed')])}
${data.recorded_frame && data.live_frame && renderPair([shot(data.recorded_frame, 'recorded frame'), shot(data.live_frame, 'live frame')])}
</div>`;
}
