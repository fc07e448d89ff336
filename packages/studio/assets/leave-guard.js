/**
 * Asking before leaving a page with unsaved edits: by a link ("← Workflows"), the browser's Back, a
 * reload or closing the tab. The page shown sets what to ask (null when there is nothing to lose).
 */

let ask = () => null;

/** `question()` says what to ask before leaving the page shown, or null to leave freely. */
export function guardLeaving(question) {
  ask = question;
}

/** Whether leaving may go on: asks the page's question, if it has one. */
export function mayLeave() {
  const question = ask();
  return question === null || window.confirm(question);
}

window.addEventListener('beforeunload', (event) => {
  if (ask() === null) return;
  // The browser asks in its own words.
  event.preventDefault();
  event.returnValue = '';
});
