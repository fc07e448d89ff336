/** A check of the screen against the recording that passed (trace and auto modes). */
import type { RunEventData } from '@mime-desktop/schema';
import { type Html, html } from './html.ts';

const CHECKS: Record<RunEventData<'verify'>['check'], string> = {
  before_step: 'before the step',
  after_step: 'after the step: it changed the screen as recorded',
  subtask_outcome: 'subtask outcome: the app shows what the recording shows here',
};

const READ = { app: 'read from the app', ocr: 'read by OCR' } as const;

export function renderVerified(data: RunEventData<'verify'>): Html {
  const how = data.read
    ? READ[data.read]
    : `${Math.round(data.similarity * 100)}% as recorded, ${Math.round(data.threshold * 100)}% needed`;
  return html`<p class="verified">✓ Verified ${CHECKS[data.check]} <span class="muted">(${how})</span></p>`;
}
