/**
 * Building the page from DOM nodes (workflow text is data, never markup), the status line, and moving
 * between pages with a message for the next one.
 */

const main = document.getElementById('main');
const status = document.getElementById('status');

/** An element with attributes (`on*` as listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
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

/** Shows `children` (nested arrays and nulls allowed) as the page's content. */
export function show(...children) {
  main.replaceChildren(
    ...children.flat(Number.POSITIVE_INFINITY).filter((c) => c !== null && c !== undefined && c !== false),
  );
}

/** What the status line says once the next page is shown (after an action that moves to it). */
let sayNext = null;

/** Moves to `hash`, whose page then says `message`. */
export function go(hash, message) {
  sayNext = message;
  location.hash = hash;
}

/** The message an action left for this page (once), else `fallback`. */
export function takeMessage(fallback = '') {
  const message = sayNext ?? fallback;
  sayNext = null;
  return message;
}

export function say(message, { error = false } = {}) {
  status.textContent = message;
  status.classList.toggle('error', error);
}

/** Focuses the page's content (after a new page is shown), without scrolling to lay it all out. */
export function focusMain() {
  main.focus({ preventScroll: true });
}

/** A page that could not be shown, saying why. */
export function failed(body) {
  show(h('p', { class: 'problem', role: 'alert' }, body?.error?.message ?? 'the studio did not answer'));
  say('');
}
