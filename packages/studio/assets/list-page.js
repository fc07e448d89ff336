/** The workflow list (#/), with the recordings not reflected yet, each reflected from here. */
import { api, fileUrl, workflowPage } from './api.js';
import { failed, h, say, show, takeMessage } from './dom.js';
import { hasDraft } from './draft-store.js';
import { formatStep } from './numbering.js';
import { runStateLabel } from './run-state.js';

/** The list; `signal` gives it up when the page is left while it loads. */
export async function showList(signal) {
  const { ok, body } = await api('/api/workflows', { signal });
  signal.throwIfAborted();
  if (!ok) return failed(body);
  document.title = 'Workflows · mime studio';
  const items = body.workflows.map((w) =>
    h(
      'li',
      { class: 'card' },
      h(
        'a',
        { href: workflowPage(w.id) },
        w.thumbnail ? h('img', { src: fileUrl(w.id, w.thumbnail), alt: '' }) : h('img', { alt: '' }),
        h('h2', {}, w.name ?? w.id),
        h(
          'p',
          { class: 'muted' },
          `${w.steps} steps · params: ${w.params.length ? w.params.join(', ') : 'none'}`,
        ),
        h(
          'p',
          { class: w.last_run?.outcome ? `outcome-${w.last_run.outcome}` : 'muted' },
          w.last_run ? `last run: ${w.last_run.outcome ?? runStateLabel(w.last_run.state)}` : 'never run',
        ),
        hasDraft(w.id) ? h('p', { class: 'unsaved' }, 'unsaved edits in this browser') : null,
        w.problem ? h('p', { class: 'problem' }, w.problem) : null,
      ),
    ),
  );
  show(
    h('h1', {}, 'Workflows'),
    items.length
      ? h('ul', { class: 'cards' }, items)
      : h(
          'p',
          { class: 'muted' },
          'No workflows in this home yet: record one with mime record, then reflect it here.',
        ),
    recordingsPanel(body.recordings),
  );
  say(takeMessage());
}

/** The recordings not reflected yet, each reflected from here with its progress shown. */
function recordingsPanel(recordings) {
  const waiting = recordings.filter((r) => !r.reflected);
  if (waiting.length === 0) return null;
  const withModel = h('input', { type: 'checkbox', id: 'reflect-model', checked: true });
  const log = h('ul', { class: 'run-log', 'aria-live': 'polite', 'aria-label': 'Reflect progress' });
  const rows = waiting.map((r) =>
    h(
      'li',
      {},
      h('strong', {}, r.name ?? r.id),
      h('span', { class: 'muted' }, ` · ${r.events} actions${r.problem ? ` · ${r.problem}` : ''} `),
      h(
        'button',
        {
          type: 'button',
          'aria-label': `Reflect ${r.name ?? r.id}`,
          disabled: r.problem !== null,
          onclick: (event) =>
            reflectRecording(r, { withModel: withModel.checked, log, button: event.target }),
        },
        'Reflect',
      ),
    ),
  );
  return h(
    'section',
    { class: 'recordings', 'aria-labelledby': 'recordings-heading' },
    h('h2', { id: 'recordings-heading' }, 'Recordings not reflected yet'),
    h('ul', { class: 'recording-list' }, rows),
    h(
      'p',
      {},
      withModel,
      h('label', { for: 'reflect-model' }, ' With the configured model (else from the recording alone)'),
    ),
    log,
  );
}

/** The progress line of each reflect event the page shows. */
const REFLECT_LINES = {
  start: (e) => `Reflecting ${e.sessionId}: ${e.steps} steps`,
  card: (e) => `Pass A: ${formatStep(e.i)} described (${e.done} of ${e.total})`,
  retry: (e) => `retrying: ${e.reason}`,
  'plan-start': () => 'Pass B: planning subtasks and params',
  'model-free': () => 'Made from the recording alone (no model)',
  'plan-done': (e) => `${e.subtasks} subtask(s), params: ${e.params.join(', ') || 'none'}`,
};

/** Reflects a recording, streaming its progress into `log`. */
async function reflectRecording(recording, { withModel, log, button }) {
  log.replaceChildren();
  button.disabled = true;
  const result = await api(`/api/recordings/${encodeURIComponent(recording.id)}/reflect`, {
    method: 'POST',
    body: { model: withModel },
  });
  if (!result.ok) {
    button.disabled = false;
    return say(result.body?.error?.message ?? 'the reflect did not start', { error: true });
  }
  say(`Reflecting ${recording.name ?? recording.id}…`);
  const line = (text, kind = '') => log.append(h('li', { class: kind }, text));
  const source = new EventSource(`/api/reflects/${result.body.reflect.id}/events`);
  source.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.kind === 'note') return line(data.text, 'muted');
    if (data.kind === 'event') {
      const text = REFLECT_LINES[data.event.type]?.(data.event);
      return text ? line(text) : undefined;
    }
    source.close();
    button.disabled = false;
    if (data.outcome !== 'success') {
      line(`✗ failed [${data.code}] ${data.reason ?? ''}`, 'outcome-failed');
      return say(`the reflect failed: ${data.reason ?? data.code}`, { error: true });
    }
    line('✓ reflected', 'outcome-success');
    log.append(h('li', {}, h('a', { href: workflowPage(data.workflowId) }, 'Open the workflow')));
    say(`${recording.name ?? recording.id} is reflected: its workflow is ready to review.`);
  };
}
