/**
 * The cause first, at the top of a failed run's report: one line naming the step and what differed,
 * the likely cause next, the divergence's two crops beside it, and what to do (open the step, replay
 * from a fresh app). The whole message follows, folded.
 */
import { typedRunEvent } from '@mime-desktop/schema';
import type { EmbeddedImage } from './embed-images.ts';
import { type Html, html } from './html.ts';
import type { RunArtifacts } from './read-run.ts';
import { renderPair } from './render-shot.ts';
import { type RunCause, type RunDivergence, runCause } from './run-cause.ts';
import type { RunOverview } from './summarize-run.ts';

/** The last divergence of a run's events, with where it happened. */
export function lastDivergence(events: RunArtifacts['events']): RunDivergence | null {
  for (const event of [...events].reverse()) {
    const typed = typedRunEvent(event);
    if (typed?.type === 'divergence') {
      return { ...typed.data, subtask_i: typed.subtask_i, iteration: typed.iteration };
    }
  }
  return null;
}

/** The app's window (the setup's query in words) when the run failed with it gone, else null. */
function windowGoneOf(events: RunArtifacts['events']): string | null {
  for (const event of events) {
    const typed = typedRunEvent(event);
    if (typed?.type === 'app_window_gone') return typed.data.window;
  }
  return null;
}

/** Where in the report the divergence is shown: its turn, else its subtask. */
function anchorOf(divergence: RunDivergence): string {
  const { subtask_i, iteration } = divergence;
  if (divergence.step_i !== null && subtask_i !== null && iteration !== null)
    return `#s${subtask_i}-t${iteration}`;
  return `#subtask-${subtask_i ?? 0}`;
}

/** The cause of a run that did not succeed, as a report's header shows it; null for a success. */
export function causeOf(run: RunArtifacts, overview: RunOverview): RunCause | null {
  if (
    overview.outcome === 'running' ||
    overview.outcome === 'interrupted' ||
    overview.outcome === 'unfinished'
  )
    return null;
  return runCause(overview, lastDivergence(run.events), { windowGone: windowGoneOf(run.events) });
}

export function renderCause(
  cause: RunCause,
  overview: RunOverview,
  images: ReadonlyMap<string, EmbeddedImage>,
): Html {
  const { divergence } = cause;
  const crops =
    divergence &&
    renderPair(
      (
        [
          [divergence.expected, 'Recorded'],
          [divergence.observed, 'This run'],
        ] as const
      ).map(([name, side]) => ({
        label: side,
        shot: {
          id: `cause-${side.replace(' ', '-')}`,
          name,
          image: images.get(name),
          alt: `${side}: ${name}`,
        },
      })),
    );
  const fresh =
    cause.fresh &&
    overview.workflowDir &&
    html`<li>Replay from a fresh app: <code>mime replay ${overview.workflowDir} --fresh</code> (or <strong>Start from a fresh app</strong> in the studio)</li>`;
  return html`<section class="cause" aria-labelledby="cause-headline">
<p class="cause-headline" id="cause-headline">${cause.headline}</p>
${cause.cause && html`<p class="cause-likely"><strong>Likely cause:</strong> ${cause.cause}</p>`}
${crops}
<ul class="cause-actions">
${divergence && html`<li><a href="${anchorOf(divergence)}">Open the step in the timeline</a></li>`}
${fresh}
</ul>
${overview.reason && html`<details class="cause-message"><summary>The whole message</summary><p>${overview.reason}</p></details>`}
</section>`;
}
