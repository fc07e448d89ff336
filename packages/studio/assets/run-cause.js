/**
 * Why a run did not succeed, cause first, as the run panel shows it when the run ends: one line naming
 * the step and what differed, the likely cause, the two crops of the divergence, and what to do (open
 * the step, re-run from a fresh app). The studio reads the cause as report.html does.
 */
import { h } from './dom.js';
import { jumpTo } from './focus.js';
import { stepCardId, subtaskHeadingId } from './page-ids.js';
import { OPEN_STEPS } from './subtask-section.js';

/**
 * The cause of run `runId`'s end; `rerunFresh` starts it again from a fresh app (null when the workflow
 * has no setup to start its app from); `crops` the crops' sizes by path.
 */
export function causeView(runId, cause, { rerunFresh, crops }) {
  const { divergence } = cause;
  const crop = (path, side) => {
    const image = h('img', {
      src: `/api/runs/${runId}/file?path=${encodeURIComponent(path)}`,
      alt: `${side}: ${path}`,
    });
    // Its place kept before its pixels come: the buttons below it stay where a click is aimed.
    const size = crops[path];
    if (size) {
      image.width = size.width;
      image.style.aspectRatio = `${size.width} / ${size.height}`;
    }
    return h('figure', {}, h('figcaption', {}, side), image);
  };
  const place = divergence
    ? divergence.step_i === null
      ? subtaskHeadingId(divergence.subtask_i ?? 0)
      : stepCardId(divergence.step_i)
    : null;
  const open =
    place &&
    h(
      'button',
      {
        type: 'button',
        id: 'cause-open-step',
        onclick: () => {
          // A long workflow's subtask opens first: its step's card is built then.
          const heading = document.getElementById(subtaskHeadingId(divergence.subtask_i ?? 0));
          heading
            ?.closest('section')
            ?.querySelector('details.subtask-steps')
            ?.dispatchEvent(new Event(OPEN_STEPS));
          jumpTo(document.getElementById(place));
        },
      },
      divergence.step_i === null ? 'Open the subtask' : 'Open the step',
    );
  const fresh =
    cause.fresh && rerunFresh
      ? h(
          'button',
          { type: 'button', id: 'cause-rerun-fresh', class: 'primary', onclick: rerunFresh },
          'Re-run from a fresh app',
        )
      : null;
  return h(
    'section',
    { class: 'run-cause', 'aria-labelledby': 'cause-headline' },
    h('p', { id: 'cause-headline', class: 'cause-headline' }, cause.headline),
    cause.cause ? h('p', {}, h('strong', {}, 'Likely cause: '), cause.cause) : null,
    divergence
      ? h(
          'div',
          { class: 'cause-crops' },
          crop(divergence.expected, 'Recorded'),
          crop(divergence.observed, 'This run'),
        )
      : null,
    open || fresh ? h('p', { class: 'cause-actions' }, fresh, ' ', open) : null,
  );
}
