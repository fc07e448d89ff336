/**
 * The run going on, as a workflow's page shows it: "Step n of N" and the check being made, Pause
 * (saying who paused), Stop, its log and latest screen; its outcome the moment it ends, then Re-run and
 * Run with other values. Kept across the page's rebuilds (an edit during a run loses nothing), and
 * found again after a reload or from another page.
 */
import { api, runPage, workflowUrl } from './api.js';
import { h, say } from './dom.js';
import { formatPlace, formatStep } from './numbering.js';
import { causeView } from './run-cause.js';
import { pauseLine, RunProgress } from './run-progress.js';
import { runStateLabel } from './run-state.js';

/** The log line of each run event the page shows (pauses have theirs, naming who). */
const RUN_LINES = {
  subtask_start: (e) => `Subtask ${e.position} of ${e.count}: ${e.text}`,
  setup: (e) => (e.fresh ? 'Started from a fresh app (restarted from its setup)' : null),
  step: (e) =>
    `${formatPlace(e.subtask_i, e.step_i)}: ${e.description} (${e.executed_by}${e.rung ? `, found by ${e.rung}` : ''})`,
  extract: (e) => `${e.variable} = ${e.value}`,
  divergence: (e) =>
    `diverged at ${e.step_i === null ? 'the outcome check' : formatStep(e.step_i)} (${e.check})`,
  handover: (e) => `handed to the model: ${e.reason}`,
};

/** How a run line looks, by its event (the others are muted). */
const RUN_LINE_KINDS = { divergence: 'problem', step: '', extract: '', paused: '', resumed: '' };

/** The live run's part of the page (made once per page, kept as the page is built again). */
export function liveRun(state) {
  state.live ??= makeLive(state);
  return state.live.node;
}

function makeLive(state) {
  const progress = h('p', { id: 'run-progress', class: 'run-progress', hidden: true });
  const now = h('p', { id: 'run-now', class: 'muted', hidden: true });
  const pausedNote = h('p', { id: 'run-paused', class: 'paused-note', hidden: true });
  const pause = h('button', { type: 'button', id: 'run-pause', hidden: true }, 'Pause');
  const stop = h('button', { type: 'button', id: 'run-stop', hidden: true }, 'Stop');
  const rerun = h('button', { type: 'button', id: 'run-again', hidden: true }, 'Re-run');
  const other = h('button', { type: 'button', id: 'run-other', hidden: true }, 'Run with other values');
  const cause = h('div', { class: 'run-cause-slot' });
  const log = h('ul', { class: 'run-log', 'aria-live': 'polite', 'aria-label': 'Run progress' });
  const shot = h('img', { class: 'run-shot', alt: 'The screen at the latest step', hidden: true });
  const node = h(
    'section',
    { class: 'run-live', 'aria-label': 'The latest run' },
    progress,
    now,
    pausedNote,
    cause,
    h('p', { class: 'run-controls' }, pause, ' ', stop, ' ', rerun, ' ', other),
    log,
    shot,
  );
  const live = { node, progress, now, pausedNote, cause, pause, stop, rerun, other, log, shot, run: null };
  live.again = async (changes = {}) => {
    const result = await api(`/api/runs/${live.run.id}/rerun`, { method: 'POST', body: changes });
    if (!result.ok) return say(result.body?.error?.message ?? 'the run did not start', { error: true });
    watchRun(state, result.body.run.id, { ...live.run.request, ...changes });
    pause.focus();
  };
  rerun.onclick = () => live.again();
  other.onclick = () => fillRunForm(live.run.request);
  return live;
}

/** Puts a run's values (its secrets left to type again), mode and fresh start in the Run form, and focuses it. */
function fillRunForm(request) {
  const fields = document.querySelectorAll('form.run input[name]:not([type="checkbox"])');
  for (const field of fields) field.value = request.params[field.name] ?? '';
  document.getElementById('run-mode').value = request.mode;
  document.getElementById('run-fresh').checked = request.fresh;
  const first = fields[0] ?? document.getElementById('run-mode');
  first.focus();
  say(
    request.secrets.length
      ? `The last run's values are in the form; type ${request.secrets.join(', ')} again, change what you want, then Run.`
      : "The last run's values are in the form: change what you want, then Run.",
  );
}

/** Whether a run of this page's workflow is going on (the Run button waits for it). */
export const runGoingOn = (state) => Boolean(state.live?.run && !state.live.run.done);

/**
 * Watches the run of this workflow going on, if any (started before a reload, or from another page);
 * `signal` gives it up when the page is left first.
 */
export async function findLiveRun(state, signal) {
  const { ok, body } = await api(`${workflowUrl(state.id)}/live`, { signal });
  signal.throwIfAborted();
  if (ok && body.run && !runGoingOn(state)) {
    const { id, ...request } = body.run;
    watchRun(state, id, request);
  }
}

/** The page's stream of its workflow's runs as they start, while the page is shown. */
let following = null;

/**
 * Follows every run of this workflow that starts while its page is shown (from another tab too), and
 * its runs as on disk each time one starts or ends (`mime replay` from a terminal too).
 */
export function followRuns(state) {
  stopFollowingRuns();
  following = new EventSource(`${workflowUrl(state.id)}/runs/live`);
  following.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.kind === 'runs') return takeRuns(state, data.runs);
    const { id, ...request } = data.run;
    watchRun(state, id, request);
  };
}

/** The runs as on disk, the run this page follows kept as it shows it (going on, or just ended). */
function takeRuns(state, runs) {
  const followed = state.runs.filter((r) => r.live);
  const ids = new Set(followed.map((r) => r.run_id));
  state.runs = [...runs.filter((r) => !ids.has(r.run_id)), ...followed];
  refreshRuns(state);
}

/** Stops following runs (the page is left). */
export function stopFollowingRuns() {
  following?.close();
  following = null;
}

/** Streams run `runId`'s events into the live part and the Runs list, until it ends. */
export function watchRun(state, runId, request) {
  const live = state.live;
  // Started here, it is also told by the stream of runs as they start: watched once.
  if (live.run?.id === runId) return;
  const run = { id: runId, request, done: false, progress: new RunProgress(state.saved), outcome: null };
  live.run = run;
  live.log.replaceChildren();
  live.cause.replaceChildren();
  live.shot.hidden = true;
  for (const node of [live.rerun, live.other, live.pausedNote]) node.hidden = true;
  for (const node of [live.pause, live.stop, live.progress, live.now]) node.hidden = false;
  live.pause.textContent = 'Pause';
  live.progress.textContent = 'Starting…';
  live.now.textContent = '';
  setRunButton(state);
  live.stop.onclick = () => api(`/api/runs/${runId}/stop`, { method: 'POST', body: {} });
  // The button says what the run did last (paused or resumed), as its events come in.
  live.pause.onclick = () =>
    api(`/api/runs/${runId}/${live.pause.textContent === 'Pause' ? 'pause' : 'resume'}`, {
      method: 'POST',
      body: {},
    });
  const line = (text, kind = '') => live.log.append(h('li', { class: kind }, text));
  const source = new EventSource(`/api/runs/${runId}/events`);
  say('Running…');
  source.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.kind === 'end') {
      source.close();
      return ended(state, run, data, line);
    }
    const { event } = data;
    run.progress.take(event, data.by);
    showProgress(live, run.progress);
    if (event.type === 'paused' || event.type === 'resumed') {
      live.pause.textContent = event.type === 'paused' ? 'Resume' : 'Pause';
      line(pauseLine(event, data.by), 'pause-line');
    }
    const text = RUN_LINES[event.type]?.(event);
    if (text) line(text, RUN_LINE_KINDS[event.type] ?? 'muted');
    if (event.type === 'run_start') {
      // The Runs list shows it at once, going on.
      const others = state.runs.filter((r) => r.run_id !== event.run_id);
      state.runs = [...others, { run_id: event.run_id, mode: event.mode, outcome: null, live: true }];
      refreshRuns(state);
    }
    if (event.type === 'run_end') showOutcome(state, run, event, line);
    else refreshRuns(state);
    if (event.type === 'step') {
      live.shot.src = `/api/runs/${runId}/file?path=${encodeURIComponent(event.screenshot)}`;
      live.shot.hidden = false;
    }
  };
}

function showProgress(live, progress) {
  live.progress.textContent = progress.step ?? 'Starting…';
  live.now.textContent = progress.now ? `Now: ${progress.now}` : '';
  live.now.hidden = !progress.now;
  live.pausedNote.textContent = progress.paused ?? '';
  live.pausedNote.hidden = !progress.paused;
}

/** The outcome line, as the run says it ended (before its report is written). */
function showOutcome(state, run, outcome, line) {
  if (run.outcome) return;
  run.outcome = outcome;
  const text =
    outcome.outcome === 'success'
      ? '✓ success'
      : `${outcome.outcome === 'aborted' ? '■ aborted' : '✗ failed'} [${outcome.code}] ${outcome.reason ?? ''}`;
  line(text, `outcome-${outcome.outcome}`);
  // The status line stays one line: the whole message is the log's; the cause comes with the run's end.
  say(outcome.outcome === 'success' ? text : text.split(' [')[0], { error: outcome.outcome !== 'success' });
  const { live } = state;
  live.now.hidden = true;
  live.pausedNote.hidden = true;
  live.pause.hidden = true;
  refreshRuns(state);
}

/** The run ended (its report written, the display free): the report's link, Re-run, the Runs list as on disk. */
async function ended(state, run, data, line) {
  run.done = true;
  const { live } = state;
  showOutcome(state, run, data, line);
  // The focus stays on the run's controls: Stop and Pause go, Re-run takes their place.
  const hadFocus = document.activeElement === live.stop || document.activeElement === live.pause;
  live.stop.hidden = true;
  live.pause.hidden = true;
  live.rerun.hidden = false;
  live.other.hidden = false;
  if (data.cause) {
    say(`${data.outcome === 'aborted' ? '■ aborted' : '✗ failed'}: ${data.cause.headline}`, { error: true });
    const rerunFresh = state.saved.setup ? () => live.again({ fresh: true }) : null;
    live.cause.replaceChildren(causeView(run.id, data.cause, { rerunFresh, crops: data.crops ?? {} }));
  }
  if (hadFocus) live.rerun.focus();
  setRunButton(state);
  if (data.dir) {
    const folder = data.dir.split('/').filter(Boolean).at(-1);
    live.log.append(h('li', {}, h('a', { href: runPage(state.id, folder) }, 'Open the report of this run')));
  }
  const { ok, body } = await api(workflowUrl(state.id));
  if (ok && live.run === run) {
    state.runs = body.runs;
    refreshRuns(state);
  }
}

/** The Run button waits while a run goes on (and while the draft is unsaved). */
function setRunButton(state) {
  const start = document.getElementById('run-start');
  if (start) start.disabled = state.dirty || runGoingOn(state);
}

/** The Runs list, built again from `state.runs` (and the run going on). */
function refreshRuns(state) {
  document.getElementById('runs')?.replaceWith(runHistory(state));
}

/** "Step n of N · Subtask k · Step n: what it does" for a run's last begun `step`, else "starting". */
function stepOf(state, step) {
  if (!step) return 'starting';
  const progress = new RunProgress(state.saved);
  progress.take({ type: 'step', executed_by: 'trace', ...step });
  return progress.step ?? 'starting';
}

/** The workflow's runs, newest first, each opening its report; the one going on with its progress. */
export function runHistory(state) {
  const going = state.live?.run;
  const items = [...state.runs].reverse().map((r) => {
    if (r.live) {
      const ended = going?.outcome?.outcome;
      const progress = going?.progress.step ?? 'starting';
      return h(
        'li',
        { class: 'run-going' },
        ended ? `Just ended: ${ended} · ${r.mode}` : `Running now · ${r.mode} · ${progress}`,
      );
    }
    // Going on in another process (`mime replay`): where its journal says it is.
    if (r.state === 'running') {
      return h('li', { class: 'run-going' }, `Running now · ${r.mode ?? '?'} · ${stepOf(state, r.step)}`);
    }
    const said = r.outcome ?? runStateLabel(r.state);
    return h(
      'li',
      {},
      h(
        'a',
        { href: runPage(state.id, r.run_id) },
        r.started_at ? new Date(r.started_at).toLocaleString() : r.run_id,
      ),
      ' ',
      h('span', { class: r.outcome || r.state === 'interrupted' ? `outcome-${said}` : 'muted' }, said),
      h(
        'span',
        { class: 'muted' },
        ` · ${r.mode ?? '?'}${r.duration_ms === null || r.duration_ms === undefined ? '' : ` · ${(r.duration_ms / 1000).toFixed(1)} s`}`,
      ),
    );
  });
  return h(
    'section',
    { id: 'runs', class: 'runs', 'aria-labelledby': 'runs-heading' },
    h('h2', { id: 'runs-heading' }, 'Runs'),
    items.length
      ? h('ol', { class: 'run-list', 'aria-label': 'Runs, newest first' }, items)
      : h('p', { class: 'muted' }, 'No runs yet.'),
  );
}
