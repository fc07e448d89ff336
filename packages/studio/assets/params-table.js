/** A workflow's params: each one's example, sensitive flag, new name or deletion, and a new param. */
import { h } from './dom.js';
import { editForm } from './step-card.js';

/** A param's example (the value a run types when given none), editable in place. */
function exampleForm(state, p) {
  const input = h('input', {
    id: `example-${p.name}`,
    value: p.example ?? '',
    autocomplete: 'off',
    size: 14,
  });
  return editForm(state, {
    field: input,
    label: `Example of ${p.name}`,
    button: 'Set',
    change: () => ({ kind: 'set-param', name: p.name, example: input.value }),
    done: () => `${p.name}'s example is "${input.value}" now: save to keep it`,
  });
}

/** A param's description (what a run's caller reads: an MCP tool's argument, the Run form), editable in place. */
function descriptionForm(state, p) {
  const input = h('input', {
    id: `description-${p.name}`,
    value: p.description,
    autocomplete: 'off',
    size: 24,
  });
  return editForm(state, {
    field: input,
    label: `Description of ${p.name}`,
    button: 'Describe',
    change: () => ({ kind: 'set-param', name: p.name, description: input.value }),
    done: () => `${p.name}'s description changed: save to keep it`,
  });
}

/** A new param by name and example; its `{name}` is then written where it goes (a step's value, a text). */
export function addParamForm(state) {
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

/** The params, each renamed (its templates follow) or deleted (its templates say its example again). */
export function paramsTable(state) {
  const { workflow } = state;
  if (workflow.task_params.length === 0) {
    return h(
      'p',
      { id: 'params-heading', tabindex: -1, class: 'muted' },
      'No params yet: use "Make this a param" on a typed value.',
    );
  }
  const row = (p) => {
    const input = h('input', {
      id: `rename-${p.name}`,
      placeholder: 'new name',
      autocomplete: 'off',
      required: true,
      size: 12,
    });
    const sensitiveId = `sensitive-${p.name}`;
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, p.name),
      h('td', {}, p.sensitive ? '(never stored)' : exampleForm(state, p)),
      h('td', {}, descriptionForm(state, p)),
      h(
        'td',
        {},
        h('input', {
          type: 'checkbox',
          id: sensitiveId,
          checked: p.sensitive,
          'aria-label': `${p.name} is sensitive`,
          onchange: (event) =>
            state.edit(
              {
                kind: 'set-param',
                name: p.name,
                sensitive: event.target.checked,
                example: event.target.checked ? null : undefined,
              },
              event.target.checked
                ? `${p.name} is sensitive now (its value is asked for at each run, never stored): save to keep it`
                : `${p.name} is not sensitive now: save to keep it`,
              [sensitiveId],
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
          focus: () => [`rename-${input.value.trim()}-submit`, 'params-heading'],
          extra: h(
            'button',
            {
              type: 'button',
              id: `delete-param-${p.name}`,
              'aria-label': `Delete ${p.name}`,
              onclick: () =>
                state.edit({ kind: 'delete-param', name: p.name }, `${p.name} is deleted: save to keep it`, [
                  'params-heading',
                ]),
            },
            'Delete',
          ),
        }),
      ),
    );
  };
  return h(
    'table',
    { 'aria-labelledby': 'params-heading' },
    h('caption', { id: 'params-heading', tabindex: -1 }, 'Params'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Param'),
        h('th', { scope: 'col' }, 'Example'),
        h('th', { scope: 'col' }, 'Description'),
        h('th', { scope: 'col' }, 'Sensitive'),
        h('th', { scope: 'col' }, 'Name'),
      ),
    ),
    h('tbody', {}, workflow.task_params.map(row)),
  );
}
