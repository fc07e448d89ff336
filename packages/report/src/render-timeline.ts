/** The timeline of the report: subtasks and their turns, replans, divergences, what stopped the run. */

import type { WorkflowStep } from '@mime-desktop/schema';
import { formatStep, formatSubtask, listSteps } from '@mime-desktop/schema';
import type { Notice, OutcomeCheck, Replan, SubtaskTimeline, TimelineBlock } from './build-timeline.ts';
import { formatCount, formatDuration, formatOffset, plural } from './format.ts';
import { type Html, html } from './html.ts';
import { renderCallout, renderUnreadable } from './render-callout.ts';
import { renderDivergence } from './render-divergence.ts';
import { renderOutcomePill } from './render-outcome.ts';
import { renderPair, renderShot } from './render-shot.ts';
import { MemoryTracker, renderTurn, type TimelineContext } from './render-turn.ts';
import { renderModelUsage } from './render-usage.ts';
import { renderVerified } from './render-verified.ts';
import { splitExpected } from './split-expected.ts';

const REPLAN_TRIGGERS: Record<string, string> = {
  no_progress: 'no progress',
  iterations: 'out of iterations',
  model: 'asked by the model',
};

function renderNotice(notice: Notice, id: string, context: TimelineContext): Html {
  switch (notice.kind) {
    case 'budget':
      return renderCallout(
        'bad',
        html`Budget exhausted: ${notice.data.budget.replace('_', ' ')} <code>${notice.data.code}</code>`,
        `used ${formatCount(notice.data.used)} of ${formatCount(notice.data.limit)}`,
      );
    case 'error': {
      const { code, message } = notice.data;
      // What stopped the run is told at the top; here the timeline only marks where.
      if (context.stopped?.code === code && (context.stopped.reason ?? '') === message) {
        return renderCallout(
          'bad',
          html`The run stopped here <code>${code}</code>`,
          'why: see the top of the report',
        );
      }
      return renderCallout('bad', html`Error <code>${code}</code>`, message);
    }
    case 'divergence':
      return renderDivergence(notice.data, id, context.images);
    case 'handover':
      return renderCallout(
        'warn',
        'Handed to the model',
        notice.data.completed_steps.length > 0
          ? html`${notice.data.reason}<br><span class="muted">steps ${notice.data.completed_steps.join(', ')} were done without it</span>`
          : notice.data.reason,
      );
    case 'verify':
      return renderVerified(notice.data);
    case 'setup':
      return renderCallout(
        'info',
        `${notice.data.fresh ? 'App reset to its recorded start; ' : ''}${notice.data.launched ? 'app launched' : 'app window found'}`.replace(
          /^a/,
          'A',
        ),
        html`${notice.data.command ? html`<code>${notice.data.command}</code> ` : ''}${notice.data.window ? html`window ${notice.data.window}` : ''} after ${(notice.data.waited_ms / 1000).toFixed(1)} s`,
      );
    case 'scope':
      return renderCallout('info', 'The model may act on', notice.data.reason);
    case 'unreadable':
      return renderUnreadable([notice.event]) ?? html``;
  }
}

function describeStep(step: WorkflowStep | undefined): Html {
  if (!step) return html`<span class="muted">not in the rendered workflow</span>`;
  return html`${step.intent}<br><span class="muted">${step.target.primary}</span>`;
}

function renderSteps(subtask: SubtaskTimeline, byIndex: ReadonlyMap<number, WorkflowStep>): Html | null {
  const { steps } = subtask;
  if (steps.length === 0) return null;
  const first = steps[0];
  const uniform = steps.every((s) => s.executed_by === first?.executed_by && s.reason === first?.reason);
  const how = (s: (typeof steps)[number]) =>
    html`<span class="exec exec-${s.executed_by}">${s.executed_by}</span>`;
  const summary =
    uniform && first
      ? html`${plural(steps.length, 'reference step')} · ${how(first)} <span class="muted">${first.reason}</span>`
      : html`${plural(steps.length, 'reference step')} · executed by ${[...new Set(steps.map((s) => s.executed_by))].join(', ')}`;
  const rows = steps.map((s) => {
    const step = byIndex.get(s.i);
    return html`<tr><td class="num">${formatStep(s.i, { title: true })}</td><td><code>${step?.action_type ?? '?'}</code></td><td>${describeStep(step)}</td><td>${step?.action_value && html`<q class="value">${step.action_value}</q>`}</td>${!uniform && html`<td>${how(s)}</td><td class="muted">${s.reason}</td>`}</tr>`;
  });
  return html`<details class="steps"><summary>${summary}</summary><table>${rows}</table></details>`;
}

function renderSubtask(subtask: SubtaskTimeline, context: TimelineContext, memory: MemoryTracker): Html {
  const { instruction, expected } = splitExpected(subtask.text);
  const byIndex = new Map(
    context.workflow ? listSteps(context.workflow).map(({ step }) => [step.i, step]) : [],
  );
  const meta = [
    subtask.origin === 'replan' ? 'from a replan' : null,
    subtask.position !== null && subtask.count !== null
      ? `${subtask.position} of ${subtask.count} in the plan`
      : null,
    subtask.at === null ? null : plural(subtask.turns.length, 'turn'),
    subtask.durationMs === null ? null : formatDuration(subtask.durationMs),
    subtask.at === null ? null : `started ${formatOffset(subtask.at)}`,
  ].filter((m) => m !== null);
  return html`<section class="subtask outcome-${subtask.outcome}" id="subtask-${subtask.subtask_i}">
<header class="subtask-head">
<span class="subtask-no">${subtask.subtask_i}</span>
<div class="subtask-title">
<h2>${instruction}</h2>
${expected !== null && html`<p class="expected"><span class="label">Expected</span> ${expected}</p>`}
${meta.length > 0 && html`<p class="subtask-meta">${meta.join(' · ')}</p>`}
</div>
${renderOutcomePill(subtask.outcome)}
</header>
${renderSteps(subtask, byIndex)}
${subtask.notices.map((n, i) => renderNotice(n, `s${subtask.subtask_i}-n${i}`, context))}
${subtask.turns.length > 0 && html`<ol class="turns">${subtask.turns.map((t) => renderTurn(t, context, memory))}</ol>`}
${subtask.outcomeChecks.map((c, i) => renderOutcomeCheck(c, `s${subtask.subtask_i}-o${i}`, context))}
</section>`;
}

/** The check of a subtask's outcome: the replayed screen beside the recorded one, or the divergence. */
function renderOutcomeCheck(check: OutcomeCheck, id: string, context: TimelineContext): Html {
  if (check.kind === 'divergence') {
    return html`<div class="outcome-check" id="${id}">${renderDivergence(check.data, id, context.images)}</div>`;
  }
  const { screenshot, recorded_frame } = check.data;
  const frames =
    screenshot &&
    renderPair([
      {
        label: 'recorded',
        shot: {
          id: `${id}-recorded`,
          name: recorded_frame ?? 'the recorded frame',
          image: recorded_frame ? context.recorded.get(recorded_frame) : undefined,
          alt: 'The recorded screen at the end of the subtask',
        },
      },
      {
        label: 'replayed',
        shot: {
          id,
          name: screenshot,
          image: context.images.get(screenshot),
          alt: 'The screen the outcome was checked on',
        },
      },
    ]);
  return html`<div class="outcome-check" id="${id}">${renderVerified(check.data)}${frames}</div>`;
}

function renderReplan(replan: Replan, context: TimelineContext): Html {
  const { data } = replan;
  const id = `replan-${replan.number}`;
  const name = `replan_${replan.number}.png`;
  const trigger = data ? (REPLAN_TRIGGERS[data.trigger] ?? data.trigger) : 'failed';
  const model = renderModelUsage(replan.modelCall ? [replan.modelCall] : []);
  return html`<section class="replan" id="${id}">
<header class="replan-head"><span class="replan-icon" aria-hidden="true">↻</span><h2>Replan ${replan.number}${replan.subtask_i !== null && html` of ${formatSubtask(replan.subtask_i)}`}</h2><span class="pill pill-replan">${trigger}</span><span class="turn-time">${formatOffset(replan.at)}</span></header>
${data ? html`<p class="replan-reason">${data.reason}</p>` : renderCallout('bad', 'The replan did not return a plan', 'See the error below.')}
<div class="replan-grid">
<div class="turn-shot">${renderShot({ id, name, image: context.images.get(name), alt: `Screen the run replanned from (replan ${replan.number})` })}</div>
<div>
<h3>Done before the replan</h3>
${replan.completed.length > 0 ? html`<ol class="completed">${replan.completed.map((c) => html`<li>${c}</li>`)}</ol>` : html`<p class="muted">nothing yet</p>`}
${data && html`<h3>New plan for the rest</h3><ol class="new-plan">${data.subtasks.map((s) => html`<li>${s}</li>`)}</ol>`}
${model && html`<p class="turn-meta">${model}</p>`}
</div>
</div>
</section>`;
}

function renderBlock(
  block: TimelineBlock,
  index: number,
  context: TimelineContext,
  memory: MemoryTracker,
): Html {
  switch (block.kind) {
    case 'subtask':
      return renderSubtask(block.subtask, context, memory);
    case 'replan':
      return renderReplan(block.replan, context);
    case 'notice':
      return html`<section class="notice">${renderNotice(block.notice, `n${index}`, context)}</section>`;
  }
}

/** Every block of the timeline, in order. */
export function renderTimeline(blocks: readonly TimelineBlock[], context: TimelineContext): Html {
  const memory = new MemoryTracker();
  return html`${blocks.map((block, i) => renderBlock(block, i, context, memory))}`;
}
