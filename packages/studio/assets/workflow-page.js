/**
 * A workflow's page (#/w/<id>): its params, runs and steps, and the draft being edited. Every edit goes
 * into the draft, whatever its problems: they are checked after each edit and listed (with their fixes)
 * until they are fixed, and only Save waits for that. The draft is kept in this browser while it
 * differs from the saved file, shown by a bar (Revert, Save) and asked about before leaving.
 */
import { api, cardFrame, fileUrl, workflowPage, workflowUrl } from './api.js';
import { failed, go, h, say, show, takeMessage } from './dom.js';
import { dropDraft, keepDraft, readDraft } from './draft-store.js';
import { draftWarnings } from './draft-warnings.js';
import { focusedId, focusFirst, jumpTo } from './focus.js';
import { applyChanges, sameJson } from './json-patch.js';
import { guardLeaving } from './leave-guard.js';
import { formatStep } from './numbering.js';
import { stepCardId, stepFieldId, subtaskHeadingId } from './page-ids.js';
import { addParamForm, paramsTable } from './params-table.js';
import { problemsPanel, warningsPanel } from './problems-panel.js';
import { findLiveRun, followRuns, runHistory } from './run-live.js';
import { runPanel } from './run-panel.js';
import { FIRST_SCREENS } from './step-card.js';
import { subtaskSection } from './subtask-section.js';

/** Workflow `id`'s page; `signal` gives it up when the page is left while it loads. */
export async function showWorkflow(id, signal) {
  const { ok, body } = await api(workflowUrl(id), { signal });
  signal.throwIfAborted();
  if (!ok) return failed(body);
  preloadFirstScreens(id, body.workflow);
  const state = {
    id,
    /** The workflow as saved, and the version of its file. */
    saved: body.workflow,
    version: body.version,
    /** The draft: the saved workflow with the edits made since. */
    workflow: body.workflow,
    /** The key the studio holds a draft under, and that draft: an edit of it names it, not sends it. */
    draftKey: body.draft,
    draftOf: body.workflow,
    dirty: false,
    problems: [],
    /** What the last save said when it failed (a change on disk), shown in the bar. */
    saveError: null,
    runs: body.runs,
    files: body.files,
    /** The recorded screen, where the steps' points are (null when the recording does not say). */
    screen: body.screen,
    /** The subtasks shown open when a long workflow's subtasks are collapsed. */
    openSubtasks: new Set(),
    executors: body.executors ?? [],
    /** The steps whose form is open (kept open as the page is built again). */
    openEditors: new Set(),
  };
  state.edit = (change, done, focus) => edit(state, change, done, focus);
  const notice = await restoreDraft(state, signal);
  signal.throwIfAborted();
  guardLeaving(() =>
    state.dirty
      ? `"${state.workflow.task_name}" has unsaved edits. Leave anyway? They stay in this browser as a draft until you save or revert them.`
      : null,
  );
  render(state);
  const warnings = body.warnings.map((w) => w.message).join('; ');
  say(takeMessage(notice?.text ?? warnings), { error: notice?.error ?? false });
  // A run of this workflow going on (started before a reload, or from another page) is shown live,
  // and so is each one that starts while the page is shown. Not waited for: the page is in use as
  // soon as it is shown, and a late answer must not say the page's first words over what an edit
  // made since said, nor take the focus from where the person put it (CI 10d, a busy core).
  followRuns(state);
  findLiveRun(state, signal).catch((error) => {
    if (!signal.aborted) throw error;
  });
}

/** Takes back the draft this browser kept of the workflow, if the file is still as it was then. */
async function restoreDraft(state, signal) {
  const kept = readDraft(state.id);
  if (!kept) return null;
  const when = new Date(kept.at).toLocaleString();
  if (kept.version !== state.version) {
    dropDraft(state.id);
    return {
      text: `schema.json changed on disk since your unsaved edits of ${when}: they were dropped, and the page shows the file as it is now`,
      error: true,
    };
  }
  const checked = await api(`${workflowUrl(state.id)}/check`, {
    method: 'POST',
    body: { workflow: kept.workflow },
    signal,
  });
  signal.throwIfAborted();
  if (!checked.ok) {
    dropDraft(state.id);
    return {
      text: `your unsaved edits of ${when} could not be read again (${checked.body?.error?.message ?? `HTTP ${checked.status}`}): they were dropped`,
      error: true,
    };
  }
  state.workflow = kept.workflow;
  state.draftKey = checked.body.draft;
  state.draftOf = kept.workflow;
  state.problems = checked.body.problems;
  changed(state);
  // A draft that came back to the file as saved is no draft: it was dropped.
  return state.dirty ? { text: `Your unsaved edits of ${when} are back: save or revert them.` } : null;
}

/** The draft changed: whether it differs from the file now, kept in this browser while it does. */
function changed(state) {
  state.dirty = !sameJson(state.workflow, state.saved);
  if (state.dirty) keepDraft(state.id, state.version, state.workflow);
  else dropDraft(state.id);
}

/** Starts fetching the first steps' screens while the page is built. */
function preloadFirstScreens(id, workflow) {
  const first = workflow.plan.subtasks.flatMap((s) => s.steps).slice(0, FIRST_SCREENS + 1);
  for (const step of first) {
    if (!step.source?.screenshot) continue;
    const { src, srcset, sizes } = cardFrame(fileUrl(id, step.source.screenshot));
    Object.assign(new Image(), { sizes, srcset, src });
  }
}

/** Builds the page from `state`; then the first of `focus` (ids) that is there takes the focus. */
function render(state, focus = null) {
  const { workflow } = state;
  document.title = `${state.dirty ? '• ' : ''}${workflow.task_name} · mime studio`;
  const steps = workflow.plan.subtasks.flatMap((s) => s.steps);
  show(
    h('p', {}, h('a', { href: '#/' }, '← Workflows')),
    h('h1', { id: 'workflow-heading', tabindex: -1 }, workflow.task_name),
    wordsForm(state),
    duplicateForm(state),
    goToStep(state, steps),
    problemsPanel(state, {
      edit: state.edit,
      reveal: (i, field) => reveal(state, i, field),
      revealSubtask: (k) => jumpTo(document.getElementById(subtaskHeadingId(k))),
    }),
    warningsPanel(draftWarnings(workflow), {
      edit: state.edit,
      revealField: (id) => jumpTo(document.getElementById(id)),
    }),
    h('p', { class: 'muted' }, workflow.task_description_user),
    filesLine(state.files),
    executorsList(state.executors),
    paramsTable(state),
    addParamForm(state),
    runPanel(state),
    runHistory(state),
    workflow.plan.subtasks.map((subtask, k) => subtaskSection(state, subtask, k, steps)),
    draftBar(state),
  );
  if (focus) focusFirst(focus);
}

/** Asks the studio to apply `change` to the draft; the page shows the result and its problems, unsaved. */
async function edit(state, change, done, focus = []) {
  const used = focusedId();
  const url = `${workflowUrl(state.id)}/edit`;
  const whole = { workflow: state.workflow, edit: change };
  // The draft the studio holds is named by its key; sent whole only when the studio no longer has it.
  let result = await api(url, {
    method: 'POST',
    body: state.draftOf === state.workflow ? { draft: state.draftKey, edit: change } : whole,
  });
  if (result.body?.error?.code === 'MIME_DRAFT_GONE')
    result = await api(url, { method: 'POST', body: whole });
  if (!result.ok) return say(result.body?.error?.message ?? 'the change could not be made', { error: true });
  // The answer names what changed, not the whole draft.
  state.workflow = applyChanges(state.workflow, result.body.changes);
  state.draftKey = result.body.draft;
  state.draftOf = state.workflow;
  state.problems = result.body.problems;
  state.saveError = null;
  changed(state);
  render(state, [...focus, used, 'draft-state']);
  say(done);
}

async function saveWorkflow(state) {
  const result = await api(workflowUrl(state.id), {
    method: 'PUT',
    body: { workflow: state.workflow, version: state.version },
  });
  if (result.ok) {
    state.version = result.body.version;
    state.saved = state.workflow;
    state.problems = [];
    state.saveError = null;
    changed(state);
    render(state, ['draft-state']);
    return say('Saved.');
  }
  const message = result.body?.error?.message ?? `not saved (HTTP ${result.status})`;
  state.problems = result.body?.error?.problems ?? state.problems;
  state.saveError = message;
  // The focus goes to what is to be fixed: the first problem, else what the save said.
  render(state, ['problem-0', 'draft-state']);
  say(message, { error: true });
}

function revert(state) {
  state.workflow = state.saved;
  state.problems = [];
  state.saveError = null;
  changed(state);
  render(state, ['draft-state']);
  say('Reverted: the page shows the workflow as saved.');
}

/** The bar at the foot of the window: whether the draft differs from the file, with Revert and Save. */
function draftBar(state) {
  const count = state.problems.length;
  const problems = `${count} problem${count === 1 ? '' : 's'}`;
  const text =
    state.saveError ??
    (state.dirty ? `Unsaved edits${count ? ` · ${problems} to fix before saving` : ''}` : 'No unsaved edits');
  return h(
    'div',
    { class: `draft-bar${state.dirty ? ' dirty' : ''}`, role: 'region', 'aria-label': 'Draft' },
    h('p', { id: 'draft-state', tabindex: -1, class: state.saveError ? 'problem' : null }, text),
    state.dirty
      ? [
          h('button', { type: 'button', id: 'revert', onclick: () => revert(state) }, 'Revert'),
          h(
            'button',
            {
              type: 'button',
              id: 'save',
              class: 'primary',
              disabled: count > 0,
              onclick: () => saveWorkflow(state),
            },
            count ? `Save (${problems})` : 'Save',
          ),
        ]
      : null,
  );
}

/** Opens step `i`'s form at `field` (or shows its card when there is none) and moves there. */
function reveal(state, i, field) {
  if (field) state.openEditors.add(i);
  openSubtaskOf(state, i);
  render(state);
  jumpTo(document.getElementById(field ? stepFieldId(i, field) : stepCardId(i)));
}

/** A long workflow's subtask that holds step `i` is shown open (its cards built) from now on. */
function openSubtaskOf(state, i) {
  const k = state.workflow.plan.subtasks.findIndex((s) => s.steps.some((step) => step.i === i));
  if (k >= 0) state.openSubtasks.add(k);
}

/** The workflow's name and description, changed in place (the form opens on demand). */
function wordsForm(state) {
  const { workflow } = state;
  const name = h('input', {
    id: 'workflow-name',
    value: workflow.task_name,
    autocomplete: 'off',
    required: true,
  });
  const description = h('textarea', { id: 'workflow-description', rows: 2 }, workflow.task_description_user);
  const onsubmit = (event) => {
    event.preventDefault();
    state.edit(
      { kind: 'set-workflow', name: name.value, description: description.value },
      `the workflow is "${name.value.trim()}" now: save to keep it`,
      ['workflow-words-apply', 'workflow-heading'],
    );
  };
  const details = h(
    'details',
    { class: 'step-edit workflow-words', open: state.wordsOpen },
    h('summary', {}, 'Rename or describe this workflow'),
    h(
      'form',
      { onsubmit },
      h('p', {}, h('label', { for: 'workflow-name' }, 'Name'), name),
      h('p', {}, h('label', { for: 'workflow-description' }, 'Description'), description),
      h('button', { type: 'submit', id: 'workflow-words-apply' }, 'Apply to the workflow'),
    ),
  );
  details.addEventListener('toggle', () => {
    state.wordsOpen = details.open;
  });
  return details;
}

/** A copy of the saved workflow under a new name, opened once made (its runs stay with this one). */
function duplicateForm(state) {
  const name = h('input', {
    id: 'copy-name',
    value: `${state.saved.task_name} (copy)`,
    autocomplete: 'off',
    required: true,
  });
  const onsubmit = async (event) => {
    event.preventDefault();
    const result = await api(`${workflowUrl(state.id)}/duplicate`, {
      method: 'POST',
      body: { name: name.value },
    });
    if (!result.ok) return say(result.body?.error?.message ?? 'the copy was not made', { error: true });
    go(
      workflowPage(result.body.id),
      `"${name.value.trim()}" is a copy of the saved "${state.saved.task_name}" (its runs stay with it)`,
    );
  };
  return h(
    'details',
    { class: 'step-edit workflow-words' },
    h('summary', {}, 'Duplicate this workflow'),
    h(
      'form',
      { onsubmit },
      h('p', {}, h('label', { for: 'copy-name' }, 'Name of the copy (of the workflow as saved)'), name),
      h('button', { type: 'submit' }, 'Duplicate workflow'),
    ),
  );
}

/** A field that moves to a step by its number: past the many controls of the steps before it. */
function goToStep(state, steps) {
  if (steps.length === 0) return null;
  const input = h('input', {
    id: 'go-to-step',
    type: 'number',
    min: 1,
    max: steps.length,
    required: true,
    size: 4,
  });
  const onsubmit = (event) => {
    event.preventDefault();
    const i = Number(input.value) - 1;
    // A step of a collapsed subtask: the subtask opens, its cards built, the number kept in the field.
    if (!document.getElementById(stepCardId(i)) && i >= 0 && i < steps.length) {
      openSubtaskOf(state, i);
      render(state);
      document.getElementById('go-to-step').value = String(i + 1);
    }
    const card = document.getElementById(stepCardId(i));
    if (!card)
      return say(`there is no ${formatStep(i)}: this workflow has ${steps.length} steps`, { error: true });
    jumpTo(card);
  };
  return h(
    'form',
    { class: 'go-to', onsubmit, 'aria-label': 'Go to a step' },
    h('label', { for: 'go-to-step' }, `Go to step (1-${steps.length}) `),
    input,
    h('button', { type: 'submit' }, 'Go'),
  );
}

/**
 * The steps of its optimized_plan.json that ai_mime does by a script or a browser script: what each
 * would do and the page it would open; mime replays their UI steps instead.
 */
function executorsList(executors) {
  if (executors.length === 0) return null;
  return h(
    'section',
    { class: 'executors', 'aria-label': 'Steps ai_mime does by script' },
    h(
      'p',
      {},
      'ai_mime does these by a script; mime replays their UI steps instead (it runs no code that came with a workflow):',
    ),
    h(
      'ul',
      {},
      executors.map((e) =>
        h(
          'li',
          {},
          `${e.title ?? e.step} (${e.executor}, subtasks ${e.subtasks.map((k) => k + 1).join(', ')}): ${e.goal}`,
          e.url ? h('span', {}, ` Opens ${e.url}`) : null,
        ),
      ),
    ),
  );
}

/** The files the workflow says it may touch (its optimized_plan.json), or nothing without one. */
function filesLine(files) {
  if (!files) return null;
  const list = (paths) => (paths.length > 0 ? paths.join(', ') : 'none');
  return h('p', { class: 'files' }, `Files it may read: ${list(files.read)}; write: ${list(files.write)}`);
}
