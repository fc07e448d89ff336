/**
 * Keeping the focus where the person is when a page is built again after an edit: on the control they
 * used, else on the first of its replacements the edit named that is there and can take it.
 */

/** The id of the element holding the focus, if it has one. */
export const focusedId = () => (document.activeElement?.id ? document.activeElement.id : null);

/**
 * Focuses the first element of `ids` that takes it (without scrolling: it is where it was); true if one
 * did. One that is gone, disabled or hidden (in a closed disclosure) does not, and the next is tried.
 */
export function focusFirst(ids) {
  for (const id of ids) {
    const node = id ? document.getElementById(id) : null;
    node?.focus({ preventScroll: true });
    if (node && document.activeElement === node) return true;
  }
  return false;
}

/** Scrolls `node` into view and focuses it (a jump: "go to step", a problem's place). */
export function jumpTo(node) {
  // A step of a collapsed subtask: its disclosure opens first.
  for (
    let closed = node.closest('details:not([open])');
    closed;
    closed = closed.closest('details:not([open])')
  )
    closed.open = true;
  node.scrollIntoView({ block: 'start' });
  node.focus({ preventScroll: true });
}
