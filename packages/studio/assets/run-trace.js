/**
 * A finished run read like a trace: its steps in a list (a strip beside the screen on a wide window),
 * and the selected one's screen large, before or after it, zoomable. `j` and `k` move to the next and
 * the previous step; each step has its own address (#/w/<id>/r/<run>/s/<n>, 1-based) that opens it
 * selected.
 */
import { api, runPage, runUrl } from './api.js';
import { h } from './dom.js';

/** The width of a step's picture in the list, and of the large view (twice it for a dense screen). */
const THUMB_WIDTH = 160;
const LARGE_WIDTH = 1280;

const STATUS_WORDS = { ok: 'done', diverged: 'diverged', error: 'failed' };

/**
 * The trace of run `run` of workflow `id`, step `selected` (1-based, else the first) selected; null
 * without steps. `signal` gives it up.
 */
export async function runTrace(id, run, selected, signal) {
  const { ok, body } = await api(`${runUrl(id, run)}/steps`, { signal });
  if (!ok || body.steps.length === 0) return null;
  const { steps, screen: shape } = body;
  // Each picture holds the run's screen shape before its pixels come: a list loading its thumbnails
  // does not move the step a click is aimed at.
  const shaped = (image) => {
    if (shape) image.style.aspectRatio = `${shape.width} / ${shape.height}`;
    return image;
  };
  const frame = (path, width) =>
    `${runUrl(id, run)}/file?path=${encodeURIComponent(path)}${width ? `&w=${width}` : ''}`;
  const state = {
    n: Math.min(Math.max((selected ?? 1) - 1, 0), steps.length - 1),
    side: 'before',
    zoom: false,
  };

  const items = steps.map((step, n) =>
    h(
      'li',
      {},
      h(
        'a',
        {
          href: runPage(id, run) + stepPath(n),
          id: `trace-step-${n + 1}`,
          class: `trace-item status-${step.status}`,
          onclick: (event) => {
            event.preventDefault();
            select(n);
          },
        },
        step.before
          ? shaped(
              h('img', {
                src: frame(step.before, THUMB_WIDTH),
                alt: '',
                loading: 'lazy',
                width: THUMB_WIDTH,
              }),
            )
          : null,
        h('span', { class: 'trace-label' }, `${n + 1}. ${step.label}`),
        ' ',
        h('span', { class: 'trace-action' }, `${STATUS_WORDS[step.status]} · ${step.action}`),
      ),
    ),
  );
  const image = shaped(h('img', { class: 'trace-image', alt: '' }));
  const none = h('p', { class: 'muted' });
  const screen = h(
    'div',
    { class: 'trace-screen', role: 'region', 'aria-label': 'Screen of the selected step', tabindex: 0 },
    image,
    none,
  );
  const caption = h('figcaption', { id: 'trace-caption', 'aria-live': 'polite' });
  const toggle = (name, label, pressed) =>
    h('button', { type: 'button', id: `trace-${name}`, 'aria-pressed': String(pressed) }, label);
  const before = toggle('before', 'Before', true);
  const after = toggle('after', 'After', false);
  const zoom = toggle('zoom', 'Zoom', false);
  before.addEventListener('click', () => setSide('before'));
  after.addEventListener('click', () => setSide('after'));
  zoom.addEventListener('click', () => {
    state.zoom = !state.zoom;
    draw();
  });
  const section = h(
    'section',
    { class: 'trace', 'aria-labelledby': 'trace-heading' },
    h('h2', { id: 'trace-heading' }, 'Steps of this run'),
    h(
      'p',
      { class: 'muted', id: 'trace-keys' },
      'Select a step to see its screen; the keys j and k move to the next and the previous step.',
    ),
    h(
      'div',
      { class: 'trace-grid' },
      h('nav', { 'aria-label': 'Steps of this run' }, h('ol', { class: 'trace-list' }, items)),
      h(
        'figure',
        { class: 'trace-view', 'aria-labelledby': 'trace-caption' },
        h('div', { class: 'trace-tools', role: 'group', 'aria-label': 'Screen shown' }, before, after, zoom),
        caption,
        screen,
      ),
    ),
  );

  function setSide(side) {
    state.side = side;
    draw();
  }

  function draw() {
    const step = steps[state.n];
    const path = step[state.side];
    before.setAttribute('aria-pressed', String(state.side === 'before'));
    after.setAttribute('aria-pressed', String(state.side === 'after'));
    zoom.setAttribute('aria-pressed', String(state.zoom));
    screen.classList.toggle('zoomed', state.zoom);
    caption.textContent = `Step ${state.n + 1} of ${steps.length}, ${step.label}: ${step.action} (${STATUS_WORDS[step.status]}) · ${state.side === 'before' ? 'before' : 'after'} it`;
    image.hidden = !path;
    none.hidden = Boolean(path);
    none.textContent = path ? '' : `This run kept no screen ${state.side} this step.`;
    if (path) {
      // Zoomed: the full frame at its own size, to scroll; else one scaled to the view.
      image.src = frame(path, state.zoom ? null : LARGE_WIDTH);
      image.alt = `The screen ${state.side} ${step.label}`;
    }
    items.forEach((item, n) => {
      const link = item.firstChild;
      if (n === state.n) link.setAttribute('aria-current', 'step');
      else link.removeAttribute('aria-current');
    });
  }

  /** Selects step `n` (0-based): the view shows it, its address is the page's, the list shows it. */
  function select(n, { focus = false } = {}) {
    state.n = Math.min(Math.max(n, 0), steps.length - 1);
    draw();
    history.replaceState(null, '', runPage(id, run) + stepPath(state.n));
    const link = items[state.n].firstChild;
    link.scrollIntoView({ block: 'nearest' });
    if (focus) link.focus({ preventScroll: true });
  }

  const onKey = (event) => {
    // Gone with its page: the listener goes too.
    if (!section.isConnected) return document.removeEventListener('keydown', onKey);
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest?.('input, textarea, select, [contenteditable]')) return;
    const by = { j: 1, k: -1 }[event.key];
    if (!by) return;
    event.preventDefault();
    // The focus follows the selection when it was in the list.
    select(state.n + by, { focus: Boolean(event.target.closest?.('.trace-list')) });
  };
  document.addEventListener('keydown', onKey);
  draw();
  return section;
}

/** The address part of step `n` (0-based), 1-based as people count. */
const stepPath = (n) => `/s/${n + 1}`;
