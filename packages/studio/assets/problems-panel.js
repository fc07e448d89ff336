/**
 * The draft's problems, checked after every edit: listed in a panel at the top of a workflow's page,
 * each naming where it is (a link to the card) with the fixes it allows (add the param it names, add
 * the dependency it needs, change the value), and repeated at the card or subtask they concern.
 */
import { h } from './dom.js';
import { formatPlace, formatSubtask } from './numbering.js';

const PLACE = /^plan\.subtasks\[(\d+)\](?:\.steps\[(\d+)\])?\.?(.*)$/;

/** Where problem `path` is: its subtask `k`, its step (`i`, the step's number in the plan), the field. */
export function placeOf(workflow, path) {
  const match = PLACE.exec(path);
  if (!match) return { k: null, i: null, field: path };
  const k = Number(match[1]);
  const step = match[2] === undefined ? null : workflow.plan.subtasks[k]?.steps[Number(match[2])];
  return { k, i: step ? step.i : null, field: match[3] };
}

/** A problem's place as people read it: "Subtask 1 · Step 3", "subtask 2", else its path. */
export function placeName(workflow, path) {
  const { k, i, field } = placeOf(workflow, path);
  if (k === null) return field || 'the workflow';
  return i === null
    ? `${formatSubtask(k, { title: true })} ${field}`.trim()
    : `${formatPlace(k, i)} ${field}`;
}

/** Problems under `prefix` (a path such as `plan.subtasks[0].steps[1].`), shown where they are. */
export function problemsAt(state, prefix) {
  const mine = state.problems.filter(
    (p) => p.path.startsWith(prefix) && !p.path.slice(prefix.length).startsWith('steps['),
  );
  return mine.map((p) => h('p', { class: 'problem' }, p.message));
}

const UNKNOWN_TEMPLATE = /^\{([A-Za-z_]\w*)\} names no declared param/;
const MISSING_DEPENDENCY = /add "([A-Za-z_]\w*)" to plan\.subtasks\[(\d+)\]\.dependencies/;

/**
 * The panel of the draft's problems, or null when it has none. `actions` are the page's: `edit(change,
 * done, focus)`, `reveal(i, field)` (open step `i`'s form at `field` or its card) and `revealSubtask(k)`.
 */
export function problemsPanel(state, actions) {
  if (state.problems.length === 0) return null;
  const { workflow } = state;
  const count = state.problems.length;
  const items = state.problems.map((problem, n) => {
    const { k, i, field } = placeOf(workflow, problem.path);
    const id = `problem-${n}`;
    const fixes = [];
    const unknown = UNKNOWN_TEMPLATE.exec(problem.message);
    if (unknown) {
      const name = unknown[1];
      fixes.push(
        h(
          'button',
          {
            type: 'button',
            id: `${id}-add-param`,
            onclick: () =>
              actions.edit(
                { kind: 'add-param', name },
                `${name} is a param now: give it an example, then save`,
                [`${id}-add-param`, 'problem-0', `example-${name}`],
              ),
          },
          `Add param ${name}`,
        ),
      );
    }
    const dependency = MISSING_DEPENDENCY.exec(problem.message);
    if (dependency) {
      const [, variable, subtask] = dependency;
      const at = Number(subtask);
      fixes.push(
        h(
          'button',
          {
            type: 'button',
            id: `${id}-add-dependency`,
            onclick: () =>
              actions.edit(
                { kind: 'add-dependency', subtask_i: at, variable },
                `${formatSubtask(at)} uses ${variable} now: save to keep it`,
                [`${id}-add-dependency`, 'problem-0'],
              ),
          },
          `Let ${formatSubtask(at)} use ${variable}`,
        ),
      );
    }
    const where = placeName(workflow, problem.path);
    if (i !== null) {
      const editable = { action_value: 'value', intent: 'intent', 'target.primary': 'target' }[field];
      fixes.push(
        h(
          'button',
          { type: 'button', onclick: () => actions.reveal(i, editable ?? null) },
          editable ? `Change the ${editable} of ${formatPlace(k, i)}` : `Go to ${formatPlace(k, i)}`,
        ),
      );
    } else if (k !== null) {
      fixes.push(
        h(
          'button',
          { type: 'button', onclick: () => actions.revealSubtask(k) },
          `Go to ${formatSubtask(k, { title: true })}`,
        ),
      );
    }
    return h(
      'li',
      { id, tabindex: -1 },
      h('span', { class: 'where' }, `${where}: `),
      problem.message,
      fixes.length ? h('span', { class: 'fixes' }, ' ', fixes) : null,
    );
  });
  return h(
    'section',
    { class: 'problems', 'aria-labelledby': 'problems-heading' },
    h(
      'h2',
      { id: 'problems-heading', tabindex: -1 },
      `${count} problem${count === 1 ? '' : 's'} to fix before saving`,
    ),
    h('ul', {}, items),
  );
}

/** The draft's warnings (saving is allowed), each with its fix, or null when it has none. */
export function warningsPanel(warnings, actions) {
  if (warnings.length === 0) return null;
  const items = warnings.map((warning, n) => {
    const id = `warning-${n}`;
    const fix =
      warning.kind === 'unused'
        ? h(
            'button',
            {
              type: 'button',
              onclick: () =>
                actions.edit(
                  { kind: 'delete-param', name: warning.param },
                  `${warning.param} is deleted: save to keep it`,
                  ['warning-0', 'params-heading'],
                ),
            },
            `Delete param ${warning.param}`,
          )
        : h(
            'button',
            { type: 'button', onclick: () => actions.revealField(`example-${warning.param}`) },
            `Give ${warning.param} an example`,
          );
    return h('li', { id, tabindex: -1 }, warning.message, ' ', fix);
  });
  const count = warnings.length;
  return h(
    'section',
    { class: 'warnings', 'aria-labelledby': 'warnings-heading' },
    h('h2', { id: 'warnings-heading' }, `${count} warning${count === 1 ? '' : 's'} (saving is allowed)`),
    h('ul', {}, items),
  );
}
