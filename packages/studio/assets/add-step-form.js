/**
 * A step added by hand, from its words: what it does (click, type, press keys), on what, and why. It
 * has no recorded frame, so auto and agent replays find its target on the live screen. Or a step made
 * from a recorded action no step uses, shown with its frame: it keeps its source, so trace replays it.
 */
import { api, fileUrl, workflowUrl } from './api.js';
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
          details.append(
            addStepForm(state, subtask_i, after, where),
            recordedSteps(state, subtask_i, after, where),
          );
      },
    },
    h('summary', {}, `Add a step ${where}`),
  );
  return details;
}

/** The number the step added after `after` in subtask `subtask_i` takes (one more, or the subtask's first). */
function nextNumber(state, subtask_i, after) {
  const first = state.workflow.plan.subtasks.find((s) => s.subtask_i === subtask_i)?.steps[0]?.i;
  return after === null ? (first ?? state.workflow.plan.subtasks.flatMap((s) => s.steps).length) : after + 1;
}

/**
 * The recorded actions no step of the draft uses, each with its frame and what it did, to add as a
 * step; filled once the studio answers (nothing shown for a workflow that keeps no recording).
 */
function recordedSteps(state, subtask_i, after, where) {
  const section = h('div', { class: 'recorded-steps' });
  const url = `${workflowUrl(state.id)}/unused-events`;
  const held = state.draftOf === state.workflow ? `?draft=${encodeURIComponent(state.draftKey)}` : '';
  // A draft the studio no longer holds: the saved workflow's list, filtered by this page's draft below.
  const listed = api(`${url}${held}`).then((answer) =>
    answer.body?.error?.code === 'MIME_DRAFT_GONE' ? api(url) : answer,
  );
  listed.then(({ ok, body }) => {
    if (!ok) return;
    // The draft as this page holds it decides what is used (a draft restored in this browser too).
    const used = new Set(
      state.workflow.plan.subtasks.flatMap((s) => s.steps).map((s) => s.source?.event_index),
    );
    const events = body.events.filter((e) => !used.has(e.event_index));
    if (events.length === 0) return section.append(h('p', {}, 'Every recorded action has its step.'));
    const next = nextNumber(state, subtask_i, after);
    section.append(
      h('p', {}, 'Or a recorded action no step uses:'),
      h(
        'ul',
        { class: 'recorded-events' },
        events.map((e) =>
          h(
            'li',
            {},
            h('img', {
              src: `${fileUrl(state.id, e.screenshot)}&w=240`,
              alt: `The screen before recorded action ${e.event_index + 1} (${e.did})`,
              width: 240,
            }),
            h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  state.edit(
                    { kind: 'add-recorded-step', subtask_i, after, event_index: e.event_index },
                    `${formatStep(next)} added ${where} from the recording (${e.did}): save to keep it`,
                    [stepCardId(next)],
                  ),
              },
              `Add recorded ${e.did} ${where}`,
            ),
          ),
        ),
      ),
    );
  });
  return section;
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
    const next = nextNumber(state, subtask_i, after);
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
