/**
 * The studio's page: the workflow list (#/), a workflow's page (#/w/<id>) with its steps as cards,
 * its edits, saving and runs, and a run's page (#/w/<id>/r/<run>, #/w/<id>/r/<run>/s/<n> with step n
 * selected) with its steps, report and heal.
 * ES modules served as they are (no build step), one job each; this one routes between the pages.
 */
import { focusMain } from './dom.js';
import { guardLeaving, mayLeave } from './leave-guard.js';
import { showList } from './list-page.js';
import { stopFollowingRuns } from './run-live.js';
import { showRun } from './run-page.js';
import { showWorkflow } from './workflow-page.js';

/** The address of the page shown (a refused leave goes back to it). */
let shown = location.hash;
/** Gives up the load of the page shown last when another is asked for: a slower load never wins. */
let loading = new AbortController();

async function route() {
  shown = location.hash;
  loading.abort(new DOMException(`left for ${shown || '#/'}`, 'AbortError'));
  loading = new AbortController();
  const { signal } = loading;
  guardLeaving(() => null);
  stopFollowingRuns();
  try {
    await showPage(signal);
  } catch (error) {
    // The page was left while it loaded: the page asked for since shows itself.
    if (signal.aborted) return;
    throw error;
  }
  // No scroll: focusing must not lay out the whole page before its first screens load.
  focusMain();
}

/** Shows the page the address names; each page checks `signal` after each wait. */
async function showPage(signal) {
  const run = /^#\/w\/([^/]+)\/r\/([^/]+)(?:\/s\/(\d+))?$/.exec(location.hash);
  const workflow = /^#\/w\/([^/]+)$/.exec(location.hash);
  if (run) {
    const step = run[3] ? Number(run[3]) : null;
    await showRun(decodeURIComponent(run[1]), decodeURIComponent(run[2]), step, signal);
  } else if (workflow) await showWorkflow(decodeURIComponent(workflow[1]), signal);
  else await showList(signal);
}

window.addEventListener('hashchange', () => {
  if (location.hash === shown) return;
  // A link or Back moved away from unsaved edits, and the person chose to stay: the address goes back.
  if (!mayLeave()) return history.pushState(null, '', shown || '#/');
  route();
});

// The skip link moves the focus past the header without changing the address (the page's route).
document.querySelector('.skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  focusMain();
  document.getElementById('main').scrollIntoView();
});

route();
