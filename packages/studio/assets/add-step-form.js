/**
 * A step added by hand, from its words: what it does (click, type, press keys), on what, and why. It
 * has no recorded frame, so auto and agent replays find its target on the live screen.
 */
import { h } from './dom.js';
import { formatStep, formatSubtask } from './numbering.js';
import { stepCardId } from './page-ids.js';

const ACTIONS = [
  ['CLICK', 'Click'],
  ['DOUBLE_CLICK', 'Double-click'],
  ['RIGHT_CLICK', 'Right-click'],
  ['TYPE', 'Type text'],
  ['KEYPRESS', 'Press keys'],
];

/**
 * A disclosure adding a step to subtask `subtask_i` after step `after` (null: as its first); its form
 * is built when it is first opened.
 */
export function addStepDisclosure(state, subtask_i, after) {
  const where = after === null ? `to ${formatSubtask(subtask_i)}` : `after ${formatStep(after)}`;
  const details = h(
    'details',
    {
      class: 'step-edit add-step',
      ontoggle: () => {
        if (details.open && details.childElementCount === 1)
          details.append(addStepForm(state, subtask_i, after, where));
      },
    },
    h('summary', {}, `Add a step ${where}`),
  );
  return details;
}

function addStepForm(state, subtask_i, after, where) {
  const id = (name) => `new-step-${subtask_i}-${after ?? 'first'}-${name}`;
  const field = (name, label, node) => h('p', {}, h('label', { for: id(name) }, label), node);
  const action = h(
    'select',
    { id: id('action') },
    ACTIONS.map(([value, text]) => h('option', { value }, text)),
  );
  const intent = h('input', { id: id('intent'), autocomplete: 'off', required: true });
  const target = h('input', { id: id('target'), autocomplete: 'off', required: true });
  const value = h('input', { id: id('value'), autocomplete: 'off' });
  const onsubmit = (event) => {
    event.preventDefault();
    // The new step takes the place after `after`: its number is one more (or the subtask's first).
    const first = state.workflow.plan.subtasks.find((s) => s.subtask_i === subtask_i)?.steps[0]?.i;
    const next =
      after === null ? (first ?? state.workflow.plan.subtasks.flatMap((s) => s.steps).length) : after + 1;
    state.edit(
      {
        kind: 'add-step',
        subtask_i,
        after,
        step: {
          action_type: action.value,
          intent: intent.value,
          target: target.value,
          action_value: value.value,
        },
      },
      `${formatStep(next)} added ${where}: save to keep it`,
      [stepCardId(next)],
    );
  };
  return h(
    'form',
    { onsubmit },
    field('action', 'Action', action),
    field('intent', 'Why (intent)', intent),
    field('target', 'On what (target, in words)', target),
    field('value', 'Text or keys (for Type text and Press keys)', value),
    h('button', { type: 'submit', id: id('submit') }, `Add the step ${where}`),
  );
}
