/** Boxes set apart from the flow: problems and warnings, and events shown raw. */
import type { RunEvent } from '@mime-desktop/schema';
import { plural } from './format.ts';
import { type Html, html } from './html.ts';

/** A coloured box with a title: `bad` for errors, `warn` for what went wrong but was recovered, `info` for notes. */
export function renderCallout(
  kind: 'bad' | 'warn' | 'info',
  title: Html | string,
  body?: Html | string | null,
): Html {
  return html`<div class="callout callout-${kind}"><strong>${title}</strong>${body && html`<div>${body}</div>`}</div>`;
}

/** Events whose data the report cannot read, as JSON, folded. */
export function renderUnreadable(events: readonly RunEvent[]): Html | null {
  if (events.length === 0) return null;
  return html`<details class="raw"><summary>${plural(events.length, 'event')} in a shape this report does not know</summary><pre>${events.map((e) => `${JSON.stringify(e, null, 2)}\n`)}</pre></details>`;
}
