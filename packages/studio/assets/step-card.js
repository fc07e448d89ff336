/** A step of a workflow as a card: its screens before and after, what it does, and its edits. */

import { addStepDisclosure } from './add-step-form.js';
import { cardFrame, fileUrl } from './api.js';
import { h } from './dom.js';
import { formatPlace, formatStep } from './numbering.js';
import { stepCardId, stepFieldId } from './page-ids.js';
import { problemsAt } from './problems-panel.js';

/** How many steps' screens the first view of a workflow shows (they load at once, the rest lazily). */
export const FIRST_SCREENS = 4;

/** The card of `step` (in subtask `k`); `next` is the step after it (its screen is this one's after). */
export function stepCard(state, step, next, k, prefix, place) {
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
  const name = formatPlace(k, step.i);
  return h(
    'article',
    { class: 'step', id: stepCardId(step.i), tabindex: -1, 'data-step': step.i, 'aria-label': name },
    screenshot(state, step.source?.screenshot, 'Before', step.source?.point, step.i < FIRST_SCREENS),
    screenshot(state, next?.source?.screenshot, 'After', null, step.i < FIRST_SCREENS),
    h(
      'div',
      {},
      h('h3', {}, name),
      h(
        'dl',
        { class: 'facts' },
        facts.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      ),
      problemsAt(state, prefix),
      isLiteralTyping(step) ? makeParamForm(state, step) : null,
      stepEditor(state, step),
      addStepDisclosure(state, k, step.i),
      orderButtons(state, {
        what: formatStep(step.i),
        id: stepCardId(step.i),
        ...place,
        move: (by) => ({ kind: 'move-step', step_i: step.i, by }),
        remove: { kind: 'delete-step', step_i: step.i },
        duplicate: { kind: 'duplicate-step', step_i: step.i },
        after: (by) => orderFocus(stepCardId, step.i, by),
      }),
    ),
  );
}

/**
 * Where the focus goes after an order button of the item at `n` (ids by `idOf`): a moved item (`by` -1
 * or 1) keeps it on its button in the same direction, else the other one; a deleted one (0) gives it to
 * the item now in its place; a duplicated one (2) to its copy.
 */
export function orderFocus(idOf, n, by) {
  if (by === 0) return [idOf(n), idOf(n - 1)];
  if (by === 2) return [idOf(n + 1)];
  const id = idOf(n + by);
  return by < 0 ? [`${id}-up`, `${id}-down`] : [`${id}-down`, `${id}-up`];
}

/**
 * Buttons that move `what` up or down within its list, duplicate it and delete it; `after(by)` names
 * the controls that take the focus once it is done (see `orderFocus`).
 */
export function orderButtons(state, { what, id, first, last, move, remove, duplicate, after }) {
  const button = (suffix, label, text, change, done, focus, disabled = false) =>
    h(
      'button',
      {
        type: 'button',
        id: `${id}-${suffix}`,
        'aria-label': label,
        disabled,
        onclick: () => state.edit(change, done, focus),
      },
      text,
    );
  return h(
    'p',
    { class: 'order' },
    button('up', `Move ${what} up`, '↑ Up', move(-1), `${what} moved up: save to keep it`, after(-1), first),
    button(
      'down',
      `Move ${what} down`,
      '↓ Down',
      move(1),
      `${what} moved down: save to keep it`,
      after(1),
      last,
    ),
    button(
      'duplicate',
      `Duplicate ${what}`,
      'Duplicate',
      duplicate,
      `${what} duplicated: save to keep it`,
      after(2),
    ),
    button('delete', `Delete ${what}`, 'Delete', remove, `${what} deleted: save to keep it`, after(0)),
  );
}

/** A disclosure of a step's card that builds its form when it is first opened (a page of many steps loads fast). */
function stepEditor(state, step) {
  const details = h(
    'details',
    {
      class: 'step-edit',
      id: `step-${step.i}-edit`,
      ontoggle: () => {
        if (details.open) state.openEditors.add(step.i);
        else state.openEditors.delete(step.i);
        if (details.open && details.childElementCount === 1) details.append(stepForm(state, step));
      },
    },
    h('summary', { id: `step-${step.i}-edit-summary` }, `Edit ${formatStep(step.i)}`),
  );
  if (state.openEditors.has(step.i)) {
    details.open = true;
    details.append(stepForm(state, step));
  }
  return details;
}

/** A step's words (intent, target, value, expected outcome) as a form. */
function stepForm(state, step) {
  const id = (name) => stepFieldId(step.i, name);
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
    state.edit(
      { kind: 'set-step', step_i: step.i, fields },
      `${formatStep(step.i)} changed: save to keep it`,
      [id('apply'), stepCardId(step.i)],
    );
  };
  return h(
    'form',
    { onsubmit },
    field('intent', 'Intent', intent),
    field('target', 'Target', target),
    value ? field('value', 'Value', value) : null,
    field('expected', 'Expected after it (a line each)', expected),
    h('button', { type: 'submit', id: id('apply') }, `Apply to ${formatStep(step.i)}`),
  );
}

const isLiteralTyping = (step) =>
  step.action_type === 'TYPE' &&
  (step.action_value ?? '').trim() !== '' &&
  !/\{[A-Za-z_]\w*\}/.test(step.action_value);

function makeParamForm(state, step) {
  const input = h('input', {
    id: `param-name-${step.i}`,
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
    // The form goes once the value is a param: its card keeps the focus.
    focus: [stepCardId(step.i)],
  });
}

/**
 * A form of one labelled field and a button asking for one edit: `change()` gives the edit and `done()`
 * what the status line says after it, both reading the field when the form is sent; `focus` names what
 * takes the focus after it when the form's own button is gone (or gives those names, read when sent). `more` goes between the field and the
 * button, `extra` after the button.
 */
export function editForm(
  state,
  {
    field,
    label,
    labelClass = 'muted',
    button,
    change,
    done,
    focus = [],
    className = 'make-param',
    more = null,
    extra = null,
  },
) {
  const submit = `${field.id}-submit`;
  const onsubmit = (event) => {
    event.preventDefault();
    // The control used keeps the focus: the field Enter was pressed in, or the button.
    const active = document.activeElement;
    const used = event.currentTarget.contains(active) && active.id ? active.id : submit;
    state.edit(change(), done(), [used, submit, ...(typeof focus === 'function' ? focus() : focus)]);
  };
  return h(
    'form',
    { class: className, onsubmit },
    h('label', { for: field.id, class: labelClass }, label),
    field,
    more,
    h('button', { type: 'submit', id: submit }, button),
    extra,
  );
}

function screenshot(state, path, caption, point, eager = false) {
  if (!path) return h('figure', { class: 'shot' }, h('figcaption', {}, `${caption}: none`));
  const marker = h('span', { class: 'point', hidden: true });
  const image = h('img', {
    ...cardFrame(fileUrl(state.id, path)),
    alt: `${caption}: the screen ${caption === 'Before' ? 'before' : 'after'} the step`,
    loading: eager ? 'eager' : 'lazy',
    onload: (event) => {
      if (!point) return;
      // The point is on the recorded screen; the frame shown is scaled to the card.
      const { width, height } = state.screen ?? {
        width: event.target.naturalWidth,
        height: event.target.naturalHeight,
      };
      marker.style.left = `${(100 * point.x) / width}%`;
      marker.style.top = `${(100 * point.y) / height}%`;
      marker.hidden = false;
    },
  });
  // The frame's box takes its height before its pixels come, so nothing below it moves as it loads
  // (a click aimed at a control below a lazy frame landed on the section: CI 11a, a busy core). A
  // ratio of its own: the width and height attributes' one is not kept while a lazy frame waits.
  if (state.screen) image.style.aspectRatio = `${state.screen.width} / ${state.screen.height}`;
  return h('figure', { class: 'shot' }, image, marker, h('figcaption', {}, caption));
}
