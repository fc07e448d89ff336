/**
 * The studio's page: the workflow list (#/), a workflow's page (#/w/<id>) with its steps as cards,
 * its edits, saving and runs, and a run's page (#/w/<id>/r/<run>) with its report and its heal.
 * Built from DOM nodes only: workflow text is data, never markup.
 */

const main = document.getElementById('main');
const status = document.getElementById('status');

/** Shows `children` (nested arrays and nulls allowed) as the page's content. */
function show(...children) {
  main.replaceChildren(
    ...children.flat(Number.POSITIVE_INFINITY).filter((c) => c !== null && c !== undefined && c !== false),
  );
}

/** An element with attributes (`on*` as listeners) and children (strings become text). */
function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

/** What the status line says once the next page is shown (after an action that moves to it). */
let sayNext = null;

/** Moves to `hash`, whose page then says `message`. */
function go(hash, message) {
  sayNext = message;
  location.hash = hash;
}

function say(message, { error = false } = {}) {
  status.textContent = message;
  status.classList.toggle('error', error);
}

/** Calls the studio's API; resolves `{ok, status, body}`. Writes carry the header a foreign page cannot send. */
async function api(path, { method = 'GET', body } = {}) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json', 'x-mime-studio': '1' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = response.headers.get('content-type') ?? '';
  const data = type.includes('json') ? await response.json() : null;
  return { ok: response.ok, status: response.status, body: data };
}

const workflowUrl = (id) => `/api/workflows/${encodeURIComponent(id)}`;
const fileUrl = (id, path) => `${workflowUrl(id)}/file?path=${encodeURIComponent(path)}`;
const runUrl = (id, run) => `${workflowUrl(id)}/runs/${encodeURIComponent(run)}`;
const runPage = (id, run) => `#/w/${encodeURIComponent(id)}/r/${encodeURIComponent(run)}`;

async function showList() {
  const { ok, body } = await api('/api/workflows');
  if (!ok) return failed(body);
  document.title = 'Workflows · mime studio';
  const items = body.workflows.map((w) =>
    h(
      'li',
      { class: 'card' },
      h(
        'a',
        { href: `#/w/${encodeURIComponent(w.id)}` },
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
          w.last_run ? `last run: ${w.last_run.outcome ?? 'unfinished'}` : 'never run',
        ),
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
  say(sayNext ?? '');
  sayNext = null;
}

/** The recordings not reflected yet, each reflected from here with its progress shown. */
function recordingsPanel(recordings) {
  const waiting = recordings.filter((r) => !r.reflected);
  if (waiting.length === 0) return null;
  const withModel = h('input', { type: 'checkbox', id: 'reflect-model', checked: true });
  const log = h('ol', { class: 'run-log', 'aria-live': 'polite', 'aria-label': 'Reflect progress' });
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
  card: (e) => `Pass A: step ${e.i + 1} described (${e.done} of ${e.total})`,
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
    log.append(
      h('li', {}, h('a', { href: `#/w/${encodeURIComponent(data.workflowId)}` }, 'Open the workflow')),
    );
    say(`${recording.name ?? recording.id} is reflected: its workflow is ready to review.`);
  };
}

/** The page of one workflow: `state` holds the draft being edited and the version it was opened at. */
async function showWorkflow(id) {
  const { ok, body } = await api(`/api/workflows/${encodeURIComponent(id)}`);
  if (!ok) return failed(body);
  preloadFirstScreens(id, body.workflow);
  const state = {
    id,
    workflow: body.workflow,
    version: body.version,
    runs: body.runs,
    files: body.files,
    dirty: false,
    problems: [],
  };
  render(state);
  say(sayNext ?? (body.warnings.length ? body.warnings.map((w) => w.message).join('; ') : ''));
  sayNext = null;
}

/** How many steps' screens the first view of a workflow shows (they load at once, the rest lazily). */
const FIRST_SCREENS = 4;

/** Starts fetching the first steps' screens while the page is built. */
function preloadFirstScreens(id, workflow) {
  const first = workflow.plan.subtasks.flatMap((s) => s.steps).slice(0, FIRST_SCREENS + 1);
  for (const step of first) {
    if (!step.source?.screenshot) continue;
    const image = new Image();
    image.src = fileUrl(id, step.source.screenshot);
  }
}

function render(state) {
  const { workflow } = state;
  document.title = `${workflow.task_name} · mime studio`;
  const steps = workflow.plan.subtasks.flatMap((s) => s.steps);
  const save = h(
    'button',
    { class: 'primary', disabled: !state.dirty, onclick: () => saveWorkflow(state) },
    'Save',
  );
  show(
    h('p', {}, h('a', { href: '#/' }, '← Workflows')),
    h('div', { class: 'head' }, h('h1', {}, workflow.task_name), save),
    problemsAt(state, ''),
    h('p', { class: 'muted' }, workflow.task_description_user),
    filesLine(state.files),
    paramsTable(state),
    addParamForm(state),
    runPanel(state),
    runHistory(state),
    workflow.plan.subtasks.map((subtask, k) =>
      h(
        'section',
        { class: 'subtask', 'aria-labelledby': `subtask-${k}` },
        h(
          'div',
          { class: 'head' },
          h('h2', { id: `subtask-${k}` }, `Subtask ${subtask.subtask_i + 1}`),
          orderButtons(state, {
            what: `subtask ${subtask.subtask_i + 1}`,
            first: k === 0,
            last: k === workflow.plan.subtasks.length - 1,
            move: (by) => ({ kind: 'move-subtask', subtask_i: subtask.subtask_i, by }),
            remove: { kind: 'delete-subtask', subtask_i: subtask.subtask_i },
          }),
        ),
        subtaskTextForm(state, subtask),
        dependencies(state, subtask, k),
        problemsAt(state, `plan.subtasks[${k}].`),
        h(
          'div',
          { class: 'steps' },
          subtask.steps.map((step, j) =>
            stepCard(state, step, steps[steps.indexOf(step) + 1], `plan.subtasks[${k}].steps[${j}].`, {
              first: j === 0,
              last: j === subtask.steps.length - 1,
            }),
          ),
        ),
      ),
    ),
  );
}

/** Starting a replay with params and a mode, and watching its steps come in. */
function runPanel(state) {
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
        value: p.sensitive ? '' : (p.example ?? ''),
        autocomplete: 'off',
      }),
    ),
  );
  const mode = h(
    'select',
    { id: 'run-mode', name: 'mode' },
    ['auto', 'trace', 'agent'].map((m) => h('option', { value: m }, m)),
  );
  const log = h('ol', { class: 'run-log', 'aria-live': 'polite', 'aria-label': 'Run progress' });
  const shot = h('img', { class: 'run-shot', alt: 'The screen at the latest step', hidden: true });
  const stop = h('button', { type: 'button', hidden: true }, 'Stop');
  const pause = h('button', { type: 'button', hidden: true }, 'Pause');
  const start = h('button', { type: 'submit', class: 'primary', disabled: state.dirty }, 'Run');
  const form = h(
    'form',
    {
      class: 'run',
      'aria-label': 'Run this workflow',
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
    h('h2', {}, 'Run'),
    inputs,
    h('p', {}, h('label', { for: 'run-mode' }, 'Mode '), mode, ' ', start, ' ', pause, ' ', stop),
    state.dirty ? h('p', { class: 'muted' }, 'Save first: a run replays the saved workflow.') : null,
  );
  return h('section', { class: 'run-panel' }, form, log, shot);
}

/** The workflow's runs, newest first, each opening its report (and its heal, if it learned one). */
function runHistory(state) {
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
    `Step ${e.step_i + 1}: ${e.description} (${e.executed_by}${e.rung ? `, found by ${e.rung}` : ''})`,
  extract: (e) => `${e.variable} = ${e.value}`,
  divergence: (e) =>
    `diverged at ${e.step_i === null ? 'the outcome check' : `step ${e.step_i + 1}`} (${e.check})`,
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
    start.disabled = false;
    stop.hidden = true;
    pause.hidden = true;
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

/** A param's example (the value a run types when given none), editable in place. */
function exampleForm(state, p) {
  const inputId = `example-${p.name}`;
  const input = h('input', { id: inputId, value: p.example ?? '', autocomplete: 'off', size: 14 });
  return editForm(state, {
    field: input,
    label: `Example of ${p.name}`,
    button: 'Set',
    change: () => ({ kind: 'set-param', name: p.name, example: input.value }),
    done: () => `${p.name}'s example is "${input.value}" now: save to keep it`,
  });
}

/** A subtask's text (its instruction and expected outcome), editable in place. */
function subtaskTextForm(state, subtask) {
  const id = `text-${subtask.subtask_i}`;
  const area = h('textarea', { id, rows: 2 }, subtask.text);
  return editForm(state, {
    field: area,
    label: `Text of subtask ${subtask.subtask_i + 1}`,
    button: 'Apply',
    className: 'subtask-text',
    change: () => ({ kind: 'set-subtask-text', subtask_i: subtask.subtask_i, text: area.value }),
    done: () => `subtask ${subtask.subtask_i + 1}'s text changed: save to keep it`,
  });
}

/** The params, each renamed (its templates follow) or deleted (its templates say its example again). */
/** A new param by name and example; its `{name}` is then written where it goes (a step's value, a text). */
function addParamForm(state) {
  const name = h('input', {
    id: 'new-param',
    placeholder: 'e.g. artist',
    autocomplete: 'off',
    required: true,
    size: 12,
  });
  const example = h('input', {
    id: 'new-param-example',
    autocomplete: 'off',
    size: 14,
    'aria-label': 'Its example',
  });
  return editForm(state, {
    field: name,
    label: 'Add a param named',
    button: 'Add param',
    change: () => ({ kind: 'add-param', name: name.value.trim(), example: example.value }),
    done: () =>
      `${name.value.trim()} is a param now: write {${name.value.trim()}} where its value goes (a step's value, a subtask's text), then save`,
    more: [h('span', { class: 'muted', 'aria-hidden': 'true' }, 'example'), example],
  });
}

/** The files the workflow says it may touch (its optimized_plan.json), or nothing without one. */
function filesLine(files) {
  if (!files) return null;
  const list = (paths) => (paths.length > 0 ? paths.join(', ') : 'none');
  return h('p', { class: 'files' }, `Files it may read: ${list(files.read)}; write: ${list(files.write)}`);
}

function paramsTable(state) {
  const { workflow } = state;
  if (workflow.task_params.length === 0) {
    return h('p', { class: 'muted' }, 'No params yet: use "Make this a param" on a typed value.');
  }
  const row = (p) => {
    const inputId = `rename-${p.name}`;
    const input = h('input', {
      id: inputId,
      placeholder: 'new name',
      autocomplete: 'off',
      required: true,
      size: 12,
    });
    return h(
      'tr',
      {},
      h('td', {}, p.name),
      h('td', {}, p.sensitive ? '(never stored)' : exampleForm(state, p)),
      h(
        'td',
        {},
        h('input', {
          type: 'checkbox',
          checked: p.sensitive,
          'aria-label': `${p.name} is sensitive`,
          onchange: (event) =>
            edit(
              state,
              {
                kind: 'set-param',
                name: p.name,
                sensitive: event.target.checked,
                example: event.target.checked ? null : undefined,
              },
              event.target.checked
                ? `${p.name} is sensitive now (its value is asked for at each run, never stored): save to keep it`
                : `${p.name} is not sensitive now: save to keep it`,
            ),
        }),
      ),
      h(
        'td',
        {},
        editForm(state, {
          field: input,
          label: `Rename ${p.name} to`,
          button: 'Rename',
          change: () => ({ kind: 'rename-param', name: p.name, to: input.value.trim() }),
          done: () => `${p.name} is ${input.value.trim()} now: save to keep it`,
          extra: h(
            'button',
            {
              type: 'button',
              'aria-label': `Delete ${p.name}`,
              onclick: () =>
                edit(state, { kind: 'delete-param', name: p.name }, `${p.name} is deleted: save to keep it`),
            },
            'Delete',
          ),
        }),
      ),
    );
  };
  return h(
    'table',
    { 'aria-label': 'Params' },
    h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'Param'), h('th', {}, 'Example'), h('th', {}, 'Sensitive'), h('th', {}, '')),
    ),
    h('tbody', {}, workflow.task_params.map(row)),
  );
}

/** Problems of the last save under `prefix` (a path such as `plan.subtasks[0].steps[1].`), shown where they are. */
function problemsAt(state, prefix) {
  const mine = state.problems.filter((p) =>
    prefix === ''
      ? !p.path.startsWith('plan.subtasks[')
      : p.path.startsWith(prefix) && !p.path.slice(prefix.length).startsWith('steps['),
  );
  return mine.map((p) => h('p', { class: 'problem', role: 'alert' }, `${p.path}: ${p.message}`));
}

function screenshot(state, path, caption, point, eager = false) {
  if (!path) return h('figure', { class: 'shot' }, h('figcaption', {}, `${caption}: none`));
  const marker = h('span', { class: 'point', hidden: true });
  const image = h('img', {
    src: fileUrl(state.id, path),
    alt: `${caption}: the screen ${caption === 'Before' ? 'before' : 'after'} the step`,
    loading: eager ? 'eager' : 'lazy',
    onload: (event) => {
      if (!point) return;
      const { naturalWidth, naturalHeight } = event.target;
      marker.style.left = `${(100 * point.x) / naturalWidth}%`;
      marker.style.top = `${(100 * point.y) / naturalHeight}%`;
      marker.hidden = false;
    },
  });
  return h('figure', { class: 'shot' }, image, marker, h('figcaption', {}, caption));
}

function stepCard(state, step, next, prefix, place) {
  const element = step.target.element;
  const facts = [
    ['Action', step.action_value === null ? step.action_type : `${step.action_type} ${step.action_value}`],
    ['Intent', step.intent],
    ['Target', step.target.primary],
    element
      ? [
          'Accessible element',
          `${element.role} "${element.name}"${element.window?.name ? ` in "${element.window.name}"` : ''}`,
        ]
      : null,
    step.post_action.length ? ['Expected', step.post_action.join(' ')] : null,
  ].filter(Boolean);
  return h(
    'article',
    { class: 'step', 'data-step': step.i, 'aria-label': `Step ${step.i + 1}` },
    screenshot(state, step.source?.screenshot, 'Before', step.source?.point, step.i < FIRST_SCREENS),
    screenshot(state, next?.source?.screenshot, 'After', null, step.i < FIRST_SCREENS),
    h(
      'div',
      {},
      h('h3', {}, `Step ${step.i + 1}`),
      h(
        'dl',
        { class: 'facts' },
        facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      ),
      problemsAt(state, prefix),
      isLiteralTyping(step) ? makeParamForm(state, step) : null,
      stepEditor(state, step),
      orderButtons(state, {
        what: `step ${step.i + 1}`,
        ...place,
        move: (by) => ({ kind: 'move-step', step_i: step.i, by }),
        remove: { kind: 'delete-step', step_i: step.i },
      }),
    ),
  );
}

/** Buttons that move `what` up or down within its list, and delete it. */
function orderButtons(state, { what, first, last, move, remove }) {
  const button = (label, text, change, done, disabled = false) =>
    h(
      'button',
      { type: 'button', 'aria-label': label, disabled, onclick: () => edit(state, change, done) },
      text,
    );
  return h(
    'p',
    { class: 'order' },
    button(`Move ${what} up`, '↑ Up', move(-1), `${what} moved up: save to keep it`, first),
    button(`Move ${what} down`, '↓ Down', move(1), `${what} moved down: save to keep it`, last),
    button(`Delete ${what}`, 'Delete', remove, `${what} deleted: save to keep it`),
  );
}

/** A disclosure of a step's card that builds its form when it is first opened (a page of many steps loads fast). */
function stepEditor(state, step) {
  const details = h(
    'details',
    {
      class: 'step-edit',
      ontoggle: () => {
        if (details.open && details.childElementCount === 1) details.append(stepForm(state, step));
      },
    },
    h('summary', {}, `Edit step ${step.i + 1}`),
  );
  return details;
}

/** A step's words (intent, target, value, expected outcome) as a form. */
function stepForm(state, step) {
  const id = (name) => `step-${step.i}-${name}`;
  const field = (name, label, node) => h('p', {}, h('label', { for: id(name) }, label), node);
  const intent = h('input', { id: id('intent'), value: step.intent, autocomplete: 'off' });
  const target = h('input', { id: id('target'), value: step.target.primary, autocomplete: 'off' });
  const value =
    step.action_value === null
      ? null
      : h('input', { id: id('value'), value: step.action_value, autocomplete: 'off' });
  const expected = h('textarea', { id: id('expected'), rows: 2 }, step.post_action.join('\n'));
  const onsubmit = (event) => {
    event.preventDefault();
    const fields = {
      intent: intent.value,
      target: target.value,
      expected: expected.value.split('\n'),
      ...(value ? { action_value: value.value } : {}),
    };
    edit(state, { kind: 'set-step', step_i: step.i, fields }, `step ${step.i + 1} changed: save to keep it`);
  };
  return h(
    'form',
    { onsubmit },
    field('intent', 'Intent', intent),
    field('target', 'Target', target),
    value ? field('value', 'Value', value) : null,
    field('expected', 'Expected after it (a line each)', expected),
    h('button', { type: 'submit' }, `Apply to step ${step.i + 1}`),
  );
}

const isLiteralTyping = (step) =>
  step.action_type === 'TYPE' &&
  (step.action_value ?? '').trim() !== '' &&
  !/\{[A-Za-z_]\w*\}/.test(step.action_value);

function makeParamForm(state, step) {
  const inputId = `param-name-${step.i}`;
  const input = h('input', {
    id: inputId,
    name: 'param',
    placeholder: 'e.g. song_name',
    autocomplete: 'off',
    required: true,
  });
  return editForm(state, {
    field: input,
    label: `Make "${step.action_value}" a param named`,
    labelClass: null,
    button: 'Make this a param',
    change: () => ({ kind: 'make-param', step_i: step.i, name: input.value.trim() }),
    done: () => `${input.value.trim()} is a param now: save to keep it`,
  });
}

/** Asks the studio to apply `change` to the draft; the page shows the result, unsaved. */
async function edit(state, change, done) {
  const result = await api(`/api/workflows/${encodeURIComponent(state.id)}/edit`, {
    method: 'POST',
    body: { workflow: state.workflow, edit: change },
  });
  if (!result.ok) return say(result.body?.error?.message ?? 'the change could not be made', { error: true });
  state.workflow = result.body.workflow;
  state.dirty = true;
  state.problems = [];
  render(state);
  say(done);
}

/**
 * A form of one labelled field and a button asking for one edit: `change()` gives the edit and `done()`
 * what the status line says after it, both reading the field when the form is sent. `more` goes
 * between the field and the button, `extra` after the button.
 */
function editForm(
  state,
  {
    field,
    label,
    labelClass = 'muted',
    button,
    change,
    done,
    className = 'make-param',
    more = null,
    extra = null,
  },
) {
  const onsubmit = (event) => {
    event.preventDefault();
    edit(state, change(), done());
  };
  return h(
    'form',
    { class: className, onsubmit },
    h('label', { for: field.id, class: labelClass }, label),
    field,
    more,
    h('button', { type: 'submit' }, button),
    extra,
  );
}

/** What subtask `k` uses from earlier subtasks, and what more it could use (their extracts only). */
function dependencies(state, subtask, k) {
  const upstream = state.workflow.plan.subtasks
    .slice(0, k)
    .flatMap((s) => s.steps)
    .filter((s) => s.action_type === 'EXTRACT' && s.variable_name)
    .map((s) => s.variable_name);
  const offered = upstream.filter((v) => !subtask.dependencies.includes(v));
  const used = subtask.dependencies.map((variable) =>
    h(
      'li',
      {},
      `Uses ${variable} `,
      h(
        'button',
        {
          type: 'button',
          'aria-label': `Stop using ${variable} in subtask ${subtask.subtask_i + 1}`,
          onclick: () =>
            edit(
              state,
              { kind: 'remove-dependency', subtask_i: subtask.subtask_i, variable },
              `subtask ${subtask.subtask_i + 1} no longer uses ${variable}: save to keep it`,
            ),
        },
        'Remove',
      ),
    ),
  );
  if (offered.length === 0 && used.length === 0) return null;
  const selectId = `dependency-${subtask.subtask_i}`;
  const select = h(
    'select',
    { id: selectId },
    offered.map((v) => h('option', { value: v }, v)),
  );
  const add =
    offered.length === 0
      ? null
      : editForm(state, {
          field: select,
          label: `Use a value from an earlier subtask in subtask ${subtask.subtask_i + 1}`,
          labelClass: null,
          button: 'Add dependency',
          change: () => ({ kind: 'add-dependency', subtask_i: subtask.subtask_i, variable: select.value }),
          done: () => `subtask ${subtask.subtask_i + 1} uses ${select.value} now: save to keep it`,
        });
  return [used.length ? h('ul', { class: 'dependencies' }, used) : null, add];
}

async function saveWorkflow(state) {
  const result = await api(`/api/workflows/${encodeURIComponent(state.id)}`, {
    method: 'PUT',
    body: { workflow: state.workflow, version: state.version },
  });
  if (result.ok) {
    state.version = result.body.version;
    state.dirty = false;
    state.problems = [];
    render(state);
    return say('Saved.');
  }
  state.problems = result.body?.error?.problems ?? [];
  render(state);
  say(result.body?.error?.message ?? `not saved (HTTP ${result.status})`, { error: true });
}

/** A run: what it was, the heal it learned (if any) to accept change by change, and its report. */
async function showRun(id, run) {
  const { ok, body } = await api(runUrl(id, run));
  if (!ok) return failed(body);
  const r = body.run;
  document.title = `Run ${run} · mime studio`;
  show(
    h('p', {}, h('a', { href: `#/w/${encodeURIComponent(id)}` }, '← Workflow')),
    h('h1', {}, `Run ${run}`),
    h(
      'p',
      {},
      h('span', { class: r.outcome ? `outcome-${r.outcome}` : 'muted' }, r.outcome ?? 'unfinished'),
      h(
        'span',
        { class: 'muted' },
        ` · ${r.mode ?? '?'} mode · started ${r.started_at ? new Date(r.started_at).toLocaleString() : '?'}`,
      ),
    ),
    healPanel(id, run, body.heal),
    h('iframe', {
      class: 'report',
      title: 'Run report',
      src: `${runUrl(id, run)}/report`,
      sandbox: 'allow-scripts',
    }),
  );
  say('');
}

/** The part of a screenshot around a step's target: its box with a margin, or around its point. */
function cropArea(view) {
  const margin = 40;
  if (view.box) {
    return {
      x: Math.max(0, view.box.x - margin),
      y: Math.max(0, view.box.y - margin),
      width: view.box.width + 2 * margin,
      height: view.box.height + 2 * margin,
    };
  }
  if (view.point)
    return { x: Math.max(0, view.point.x - 100), y: Math.max(0, view.point.y - 60), width: 200, height: 120 };
  return null;
}

/** A step as a heal shows it: the crop of its target on its frame, its action and intent. */
function healStep(id, run, view, side) {
  const area = cropArea(view);
  if (!view.screenshot) return healCaption(view, h('p', { class: 'muted' }, 'no screenshot'));
  const src =
    view.in === 'run'
      ? `${runUrl(id, run)}/file?path=${encodeURIComponent(view.screenshot)}`
      : fileUrl(id, view.screenshot);
  // A step with no place (an extract reads the whole screen) shows the whole screen.
  if (!area)
    return healCaption(
      view,
      h('img', { class: 'whole', src, alt: `${side}: the screen of "${view.intent}"` }),
    );
  const image = h('img', { src, alt: `${side}: the target of "${view.intent}"` });
  image.style.left = `${-area.x}px`;
  image.style.top = `${-area.y}px`;
  const frame = h('div', { class: 'crop' }, image);
  frame.style.width = `${area.width}px`;
  frame.style.height = `${area.height}px`;
  if (view.box) {
    const box = h('span', { class: 'target' });
    Object.assign(box.style, {
      left: `${view.box.x - area.x}px`,
      top: `${view.box.y - area.y}px`,
      width: `${view.box.width}px`,
      height: `${view.box.height}px`,
    });
    frame.append(box);
  }
  return healCaption(view, frame);
}

/** A heal step's picture with what the step does under it. */
function healCaption(view, picture) {
  const action = view.action_value === null ? view.action_type : `${view.action_type} ${view.action_value}`;
  return h(
    'figure',
    { class: 'heal-step' },
    picture,
    h('figcaption', {}, h('strong', {}, action), ` ${view.intent}`),
  );
}

/** The heal a run learned: each change side by side, accepted or rejected, then applied. */
function healPanel(id, run, heal) {
  if (!heal) return null;
  const heading = h('h2', { id: 'heal-heading' }, 'The workflow is out of date on this screen');
  if (heal.state === 'refused') {
    return h(
      'section',
      { class: 'heal', 'aria-labelledby': 'heal-heading' },
      heading,
      h('p', { class: 'problem' }, `[${heal.code}] ${heal.message}`),
    );
  }
  const changes = heal.changes.map((change) =>
    h(
      'fieldset',
      { class: 'change' },
      h('legend', {}, change.text),
      h(
        'div',
        { class: 'sides' },
        h(
          'div',
          {},
          h('h3', {}, 'Recorded'),
          change.before.length
            ? change.before.map((v) => healStep(id, run, v, 'Recorded'))
            : h('p', { class: 'muted' }, 'no step'),
        ),
        h(
          'div',
          {},
          h('h3', {}, 'From this run'),
          change.after.map((v) => healStep(id, run, v, 'From this run')),
        ),
      ),
      h(
        'p',
        { class: 'choice' },
        ['accept', 'reject'].map((choice) =>
          h(
            'label',
            {},
            h('input', {
              type: 'radio',
              name: `heal-${change.id}`,
              value: choice,
              checked: choice === 'accept',
            }),
            choice === 'accept' ? ' Accept ' : ' Reject (keep as recorded) ',
          ),
        ),
      ),
    ),
  );
  const form = h(
    'form',
    {
      'aria-labelledby': 'heal-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const reject = heal.changes
          .filter((c) => form.elements[`heal-${c.id}`].value === 'reject')
          .map((c) => c.id);
        const result = await api(`${runUrl(id, run)}/heal`, { method: 'POST', body: { reject } });
        if (!result.ok)
          return say(result.body?.error?.message ?? 'the heal was not applied', { error: true });
        const { applied, rejected, backup } = result.body;
        go(
          `#/w/${encodeURIComponent(id)}`,
          `Healed: ${applied.length} change(s) written, ${rejected.length} rejected; the previous schema is kept as ${backup.split('/').at(-1)}`,
        );
      },
    },
    h(
      'p',
      {},
      'A heal records the workflow again from this run, so the next auto replay here needs no model. Accept or reject each change:',
    ),
    changes,
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Apply heal')),
    h(
      'details',
      {},
      h('summary', {}, 'schema.json as the heal writes it (every change accepted)'),
      h('pre', { class: 'diff' }, heal.diff),
    ),
  );
  return h('section', { class: 'heal' }, heading, form);
}

function failed(body) {
  show(h('p', { class: 'problem', role: 'alert' }, body?.error?.message ?? 'the studio did not answer'));
  say('');
}

async function route() {
  const run = /^#\/w\/([^/]+)\/r\/([^/]+)$/.exec(location.hash);
  const workflow = /^#\/w\/([^/]+)$/.exec(location.hash);
  if (run) await showRun(decodeURIComponent(run[1]), decodeURIComponent(run[2]));
  else if (workflow) await showWorkflow(decodeURIComponent(workflow[1]));
  else await showList();
  // No scroll: focusing must not lay out the whole page before its first screens load.
  main.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);
route();
