/** A subtask of a workflow: its text, what it uses from earlier subtasks, its order, and its steps' cards. */
import { addStepDisclosure } from './add-step-form.js';
import { h } from './dom.js';
import { formatSubtask } from './numbering.js';
import { subtaskHeadingId } from './page-ids.js';
import { problemsAt } from './problems-panel.js';
import { editForm, orderButtons, orderFocus, stepCard } from './step-card.js';

/** A workflow of more steps than this opens with its subtasks' steps collapsed: its page is ready at once. */
export const COLLAPSE_OVER = 40;

/** The event that opens a collapsed subtask's steps at once, its cards built before the next line runs. */
export const OPEN_STEPS = 'mime-open-steps';

/** Subtask `k` of the workflow, `steps` being all the plan's steps in order (a card shows the next one's screen). */
export function subtaskSection(state, subtask, k, steps) {
  const { workflow } = state;
  const name = formatSubtask(subtask.subtask_i, { title: true });
  const cards = () =>
    h(
      'div',
      { class: 'steps' },
      subtask.steps.map((step, j) =>
        stepCard(state, step, steps[steps.indexOf(step) + 1], k, `plan.subtasks[${k}].steps[${j}].`, {
          first: j === 0,
          last: j === subtask.steps.length - 1,
        }),
      ),
    );
  return h(
    'section',
    { class: 'subtask', 'aria-labelledby': subtaskHeadingId(k) },
    h(
      'div',
      { class: 'head' },
      h('h2', { id: subtaskHeadingId(k), tabindex: -1 }, name),
      orderButtons(state, {
        what: formatSubtask(subtask.subtask_i),
        id: `subtask-${k}`,
        first: k === 0,
        last: k === workflow.plan.subtasks.length - 1,
        move: (by) => ({ kind: 'move-subtask', subtask_i: subtask.subtask_i, by }),
        remove: { kind: 'delete-subtask', subtask_i: subtask.subtask_i },
        duplicate: { kind: 'duplicate-subtask', subtask_i: subtask.subtask_i },
        after: (by) => orderFocus(subtaskHeadingId, k, by),
      }),
    ),
    subtaskTextForm(state, subtask),
    dependencies(state, subtask, k),
    problemsAt(state, `plan.subtasks[${k}].`),
    steps.length > COLLAPSE_OVER && subtask.steps.length > 0 ? collapsed(state, subtask, k, cards) : cards(),
    subtask.steps.length === 0 ? addStepDisclosure(state, subtask.subtask_i, null) : null,
    addSubtaskForm(state, subtask.subtask_i),
  );
}

/**
 * A long workflow's subtask with its cards in a disclosure, closed until opened (by hand, or by a jump
 * to one of its steps): a closed one's cards are not built, laid out nor load their screens.
 */
function collapsed(state, subtask, k, cards) {
  const count = subtask.steps.length;
  const open = state.openSubtasks.has(k);
  const details = h(
    'details',
    { class: 'subtask-steps', open },
    h('summary', {}, `${count} step${count === 1 ? '' : 's'} of ${formatSubtask(k)}`),
    open ? cards() : null,
  );
  const build = () => {
    if (details.childElementCount === 1) details.append(cards());
  };
  details.addEventListener('toggle', () => {
    if (details.open) state.openSubtasks.add(k);
    else state.openSubtasks.delete(k);
    if (details.open) build();
  });
  // Opened at once (its cards built now) by a jump that goes to one of its steps.
  details.addEventListener(OPEN_STEPS, () => {
    details.open = true;
    build();
  });
  return details;
}

/** A new subtask of no steps after subtask `k`, saying what the model is to do there from the screen. */
function addSubtaskForm(state, k) {
  const area = h('textarea', {
    id: `new-subtask-${k}`,
    rows: 2,
    placeholder: 'What to do, then "Expected outcome: ..."',
  });
  return h(
    'details',
    { class: 'add-subtask' },
    h('summary', {}, `Add a subtask after ${formatSubtask(k)}`),
    editForm(state, {
      field: area,
      label: `Text of the new subtask after ${formatSubtask(k)} (the agent does it from the screen)`,
      button: 'Add subtask',
      className: 'subtask-text',
      change: () => ({ kind: 'add-subtask', after: k, text: area.value }),
      done: () => `${formatSubtask(k + 1)} added: save to keep it`,
      focus: [subtaskHeadingId(k + 1)],
    }),
  );
}

/** A subtask's text (its instruction and expected outcome), editable in place. */
function subtaskTextForm(state, subtask) {
  const area = h('textarea', { id: `text-${subtask.subtask_i}`, rows: 2 }, subtask.text);
  return editForm(state, {
    field: area,
    label: `Text of ${formatSubtask(subtask.subtask_i)}`,
    button: 'Apply',
    className: 'subtask-text',
    change: () => ({ kind: 'set-subtask-text', subtask_i: subtask.subtask_i, text: area.value }),
    done: () => `${formatSubtask(subtask.subtask_i)}'s text changed: save to keep it`,
  });
}

/** What subtask `k` uses from earlier subtasks, and what more it could use (their extracts only). */
function dependencies(state, subtask, k) {
  const name = formatSubtask(subtask.subtask_i);
  const upstream = state.workflow.plan.subtasks
    .slice(0, k)
    .flatMap((s) => s.steps)
    .filter((s) => s.action_type === 'EXTRACT' && s.variable_name)
    .map((s) => s.variable_name);
  const offered = upstream.filter((v) => !subtask.dependencies.includes(v));
  const selectId = `dependency-${subtask.subtask_i}`;
  const used = subtask.dependencies.map((variable) =>
    h(
      'li',
      {},
      `Uses ${variable} `,
      h(
        'button',
        {
          type: 'button',
          id: `remove-dependency-${subtask.subtask_i}-${variable}`,
          'aria-label': `Remove: stop using ${variable} in ${name}`,
          onclick: () =>
            state.edit(
              { kind: 'remove-dependency', subtask_i: subtask.subtask_i, variable },
              `${name} no longer uses ${variable}: save to keep it`,
              [selectId, subtaskHeadingId(k)],
            ),
        },
        'Remove',
      ),
    ),
  );
  if (offered.length === 0 && used.length === 0) return null;
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
          label: `Use a value from an earlier subtask in ${name}`,
          labelClass: null,
          button: 'Add dependency',
          change: () => ({ kind: 'add-dependency', subtask_i: subtask.subtask_i, variable: select.value }),
          done: () => `${name} uses ${select.value} now: save to keep it`,
          focus: () => [`remove-dependency-${subtask.subtask_i}-${select.value}`],
        });
  return [used.length ? h('ul', { class: 'dependencies' }, used) : null, add];
}
