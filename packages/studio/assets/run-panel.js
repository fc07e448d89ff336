/** A workflow's runs: starting one with params and a mode, watching its steps come in, and the list of past runs. */
import { api, runPage } from './api.js';
import { h, say } from './dom.js';
import { formatPlace, formatStep } from './numbering.js';

/** Starting a replay with params and a mode, and watching its steps come in. */
export function runPanel(state) {
  const { workflow } = state;
  const inputs = workflow.task_params.map((p) =>
    h(
      'p',
      {},
      h('label', { for: `run-${p.name}` }, `${p.name} `),
      h('input', {
        id: `run-${p.name}`,
        name: p.name,
        type: p.sensitive ? 'password' : 'text',
        // No silent defaults: the field holds the param's explicit default only; its recorded example
        // is a hint. A required plain param must be filled (a sensitive one may come from the environment).
        value: p.sensitive ? '' : (p.default ?? ''),
        placeholder: p.sensitive || p.example === null ? null : `recorded: ${p.example}`,
        required: !p.sensitive && !p.optional && (p.default ?? null) === null,
        autocomplete: 'off',
      }),
    ),
  );
  const mode = h(
    'select',
    { id: 'run-mode', name: 'mode' },
    ['auto', 'trace', 'agent'].map((m) => h('option', { value: m }, m)),
  );
  const log = h('ul', { class: 'run-log', 'aria-live': 'polite', 'aria-label': 'Run progress' });
  const shot = h('img', { class: 'run-shot', alt: 'The screen at the latest step', hidden: true });
  const stop = h('button', { type: 'button', id: 'run-stop', hidden: true }, 'Stop');
  const pause = h('button', { type: 'button', id: 'run-pause', hidden: true }, 'Pause');
  const start = h(
    'button',
    { type: 'submit', id: 'run-start', class: 'primary', disabled: state.dirty },
    'Run',
  );
  const form = h(
    'form',
    {
      class: 'run',
      'aria-labelledby': 'run-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const params = Object.fromEntries(
          workflow.task_params.map((p) => [p.name, form.elements[p.name].value]),
        );
        const result = await api(`/api/workflows/${encodeURIComponent(state.id)}/runs`, {
          method: 'POST',
          body: { mode: mode.value, params },
        });
        if (!result.ok) return say(result.body?.error?.message ?? 'the run did not start', { error: true });
        // Secrets are not kept in the page once sent.
        for (const p of workflow.task_params) if (p.sensitive) form.elements[p.name].value = '';
        watchRun(result.body.run.id, { id: state.id, log, shot, stop, pause, start });
      },
    },
    h('h2', { id: 'run-heading' }, 'Run'),
    inputs,
    h('p', {}, h('label', { for: 'run-mode' }, 'Mode '), mode, ' ', start, ' ', pause, ' ', stop),
    state.dirty ? h('p', { class: 'muted' }, 'Save first: a run replays the saved workflow.') : null,
  );
  return h('section', { class: 'run-panel' }, form, log, shot);
}

/** The workflow's runs, newest first, each opening its report (and its heal, if it learned one). */
export function runHistory(state) {
  if (state.runs.length === 0) return null;
  const items = [...state.runs]
    .reverse()
    .map((r) =>
      h(
        'li',
        {},
        h(
          'a',
          { href: runPage(state.id, r.run_id) },
          r.started_at ? new Date(r.started_at).toLocaleString() : r.run_id,
        ),
        ' ',
        h('span', { class: r.outcome ? `outcome-${r.outcome}` : 'muted' }, r.outcome ?? 'unfinished'),
        h(
          'span',
          { class: 'muted' },
          ` · ${r.mode ?? '?'}${r.duration_ms === null ? '' : ` · ${(r.duration_ms / 1000).toFixed(1)} s`}`,
        ),
      ),
    );
  return h(
    'section',
    { class: 'runs', 'aria-labelledby': 'runs-heading' },
    h('h2', { id: 'runs-heading' }, 'Runs'),
    h('ol', { class: 'run-list' }, items),
  );
}

/** The log line of each run event the page shows. */
const RUN_LINES = {
  subtask_start: (e) => `Subtask ${e.position} of ${e.count}: ${e.text}`,
  step: (e) =>
    `${formatPlace(e.subtask_i, e.step_i)}: ${e.description} (${e.executed_by}${e.rung ? `, found by ${e.rung}` : ''})`,
  extract: (e) => `${e.variable} = ${e.value}`,
  divergence: (e) =>
    `diverged at ${e.step_i === null ? 'the outcome check' : formatStep(e.step_i)} (${e.check})`,
  handover: (e) => `handed to the model: ${e.reason}`,
  paused: () => 'Paused: the run waits before its next action',
  resumed: () => 'Resumed',
};

/** How a run line looks, by its event (the others are muted). */
const RUN_LINE_KINDS = { divergence: 'problem', step: '', extract: '' };

/** Streams a run's events into its log, the latest step's screenshot beside it. */
function watchRun(runId, { id, log, shot, stop, pause, start }) {
  log.replaceChildren();
  start.disabled = true;
  stop.hidden = false;
  pause.hidden = false;
  pause.textContent = 'Pause';
  stop.onclick = () => api(`/api/runs/${runId}/stop`, { method: 'POST', body: {} });
  // The button says what the run did last (paused or resumed), as its events come in.
  pause.onclick = () =>
    api(`/api/runs/${runId}/${pause.textContent === 'Pause' ? 'pause' : 'resume'}`, {
      method: 'POST',
      body: {},
    });
  const line = (text, kind = '') => log.append(h('li', { class: kind }, text));
  const source = new EventSource(`/api/runs/${runId}/events`);
  say('Running…');
  const ended = (data) => {
    source.close();
    // The focus stays on the run's controls: Stop and Pause go, Run is back.
    const hadFocus = document.activeElement === stop || document.activeElement === pause;
    start.disabled = false;
    stop.hidden = true;
    pause.hidden = true;
    if (hadFocus) start.focus();
    const text =
      data.outcome === 'success'
        ? '✓ success'
        : `${data.outcome === 'aborted' ? '■ aborted' : '✗ failed'} [${data.code}] ${data.reason ?? ''}`;
    line(text, `outcome-${data.outcome}`);
    if (data.dir) {
      const run = data.dir.split('/').filter(Boolean).at(-1);
      log.append(h('li', {}, h('a', { href: runPage(id, run) }, 'Open the report of this run')));
    }
    say(text, { error: data.outcome !== 'success' });
  };
  source.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.kind === 'end') return ended(data);
    const event = data.event;
    if (event.type === 'paused' || event.type === 'resumed') {
      pause.textContent = event.type === 'paused' ? 'Resume' : 'Pause';
    }
    const text = RUN_LINES[event.type]?.(event);
    if (text) line(text, RUN_LINE_KINDS[event.type] ?? 'muted');
    if (event.type === 'step') {
      shot.src = `/api/runs/${runId}/file?path=${encodeURIComponent(event.screenshot)}`;
      shot.hidden = false;
    }
  };
}
