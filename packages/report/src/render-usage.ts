/** One line of model usage: requests, tokens, time, and the codes of calls that failed. */
import type { RunEventData } from '@mime-desktop/schema';
import { formatCount, formatDuration, plural } from './format.ts';
import { type Html, html } from './html.ts';

export function renderModelUsage(calls: readonly RunEventData<'model_call'>[]): Html | null {
  if (calls.length === 0) return null;
  const sum = (pick: (c: RunEventData<'model_call'>) => number) =>
    calls.reduce((total, c) => total + pick(c), 0);
  const requests = sum((c) => c.usage.requests);
  const failed = calls.flatMap((c) => (c.error_code ? [c.error_code] : []));
  return html`<span>model: ${plural(requests, 'request')}, ${formatCount(sum((c) => c.usage.inputTokens))} in / ${formatCount(sum((c) => c.usage.outputTokens))} out tokens, ${formatDuration(sum((c) => c.usage.durationMs))}${failed.length > 0 && html` <span class="bad">failed: ${failed.join(', ')}</span>`}</span>`;
}
