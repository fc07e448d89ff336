/** The top of the report: the task, the verdict, the facts of the run, and the map of its subtasks. */
import type { Workflow } from '@mime-desktop/schema';
import type { TimelineBlock } from './build-timeline.ts';
import { formatClock, formatCount, formatDuration, plural } from './format.ts';
import { type Html, html } from './html.ts';
import { OUTCOME_LABELS, renderOutcomePill } from './render-outcome.ts';
import { splitExpected } from './split-expected.ts';
import type { RunOverview } from './summarize-run.ts';

const VERDICT_MARKS: Record<RunOverview['outcome'], string> = {
  success: '✓',
  failed: '✗',
  aborted: '■',
  running: '…',
  interrupted: '!',
  unfinished: '…',
};

/** What a run without a summary is, said in the verdict. */
const UNFINISHED_REASONS: Partial<Record<RunOverview['outcome'], string>> = {
  running:
    'The run is still going (its process is alive) and has not written summary.json yet: this report shows it so far; write it again once the run ends.',
  interrupted:
    'The run was interrupted: its process ended without writing summary.json (killed, or crashed); this report shows what its journal recorded.',
  unfinished:
    'summary.json is missing: the run was killed, or is still going (its process cannot be checked).',
};

/** The verdict: the outcome, then the cause first (`cause`) or the reason as the run said it. */
function renderVerdict(run: RunOverview, cause: Html | null): Html {
  const label = OUTCOME_LABELS[run.outcome] ?? run.outcome;
  const unfinished = UNFINISHED_REASONS[run.outcome] ?? null;
  return html`<div class="verdict verdict-${run.outcome}">
<span class="verdict-mark" aria-hidden="true">${VERDICT_MARKS[run.outcome]}</span>
<div><p class="verdict-title"><strong>${label[0]?.toUpperCase()}${label.slice(1)}</strong>${run.code && html` <code>${run.code}</code>`}${run.durationMs !== null && html` <span class="muted">in ${formatDuration(run.durationMs)}</span>`}</p>
${cause ?? ((run.reason ?? unfinished) && html`<p class="verdict-reason">${run.reason ?? unfinished}</p>`)}</div>
</div>`;
}

function fact(term: string, value: Html | string | null): Html | null {
  return value === null || value === '' ? null : html`<div><dt>${term}</dt><dd>${value}</dd></div>`;
}

function renderParams(run: RunOverview, workflow: Workflow | null): Html {
  const entries = Object.entries(run.params);
  if (entries.length === 0) return html`<p class="muted">none</p>`;
  const sensitive = new Set(workflow?.task_params.filter((p) => p.sensitive).map((p) => p.name));
  return html`<table class="kv">${entries.map(
    ([name, value]) =>
      // A sensitive value is shown as its placeholder whatever the file says.
      html`<tr><th>${name}</th><td>${sensitive.has(name) ? html`<code>{${name}}</code> <span class="badge badge-secret">sensitive</span>` : html`<q class="value">${value}</q>`}</td></tr>`,
  )}</table>`;
}

function renderUsage(run: RunOverview): Html {
  const { usage } = run;
  return html`<dl class="stats">
<div><dt>calls</dt><dd>${formatCount(usage.calls)}</dd></div>
<div><dt>requests</dt><dd>${formatCount(usage.requests)}</dd></div>
<div><dt>tokens in</dt><dd>${formatCount(usage.input_tokens)}</dd></div>
<div><dt>tokens out</dt><dd>${formatCount(usage.output_tokens)}</dd></div>
<div><dt>model time</dt><dd>${formatDuration(usage.duration_ms)}</dd></div>
</dl>`;
}

function renderBudgets(run: RunOverview): Html {
  const entries = Object.entries(run.budgets);
  if (entries.length === 0) return html`<p class="muted">not recorded</p>`;
  const show = (name: string, value: number) =>
    name === 'wall_time' ? formatDuration(value) : formatCount(value);
  return html`<ul class="budgets">${entries.map(([name, { used, limit }]) => {
    const share = limit > 0 ? Math.min(1, used / limit) : 0;
    const level = share >= 1 ? 'full' : share >= 0.75 ? 'high' : 'ok';
    return html`<li><span>${name.replace('_', ' ')}</span><span class="num">${show(name, used)} / ${show(name, limit)}</span><span class="bar bar-${level}"><span style="width: ${(share * 100).toFixed(1)}%"></span></span></li>`;
  })}</ul>`;
}

function renderExtracts(run: RunOverview): Html {
  const entries = Object.entries(run.extracts);
  if (entries.length === 0) return html`<p class="muted">none</p>`;
  return html`<table class="kv">${entries.map(([name, value]) => html`<tr><th>${name}</th><td><q class="value">${value}</q></td></tr>`)}</table>`;
}

export function renderHeader(run: RunOverview, workflow: Workflow | null, cause: Html | null = null): Html {
  const description = workflow?.task_description_user || workflow?.detailed_task_description;
  return html`<header class="run-head">
<p class="eyebrow">mime · replay report</p>
<h1>${run.taskName}</h1>
${description && html`<p class="lede">${description}</p>`}
${renderVerdict(run, cause)}
<dl class="facts">
${fact('Run', html`<code>${run.runId}</code>`)}
${fact('Mode', `${run.mode}${run.dryRun ? ' (dry run: nothing executed)' : ''}`)}
${fact('Started', formatClock(run.startedAt))}
${fact('Duration', run.durationMs === null ? (run.outcome === 'running' ? 'still going' : 'unfinished') : formatDuration(run.durationMs))}
${fact('Success criteria', workflow?.success_criteria ?? null)}
${fact('Workflow', run.workflowDir && html`<code>${run.workflowDir}</code>`)}
</dl>
</header>
<section class="panels" aria-label="Params, model, budgets and extracts">
<div class="panel"><h2>Params</h2>${renderParams(run, workflow)}</div>
<div class="panel"><h2>Model</h2>${renderUsage(run)}</div>
<div class="panel"><h2>Budgets</h2>${renderBudgets(run)}</div>
<div class="panel"><h2>Extracts</h2>${renderExtracts(run)}</div>
</section>`;
}

/** The subtasks and replans in order, each a link to its place in the timeline. */
export function renderContents(blocks: readonly TimelineBlock[]): Html {
  const items = blocks.flatMap((block) => {
    if (block.kind === 'subtask') {
      const s = block.subtask;
      const turns =
        s.at === null
          ? ''
          : `${plural(s.turns.length, 'turn')}${s.durationMs === null ? '' : `, ${formatDuration(s.durationMs)}`}`;
      return [
        html`<li><a href="#subtask-${s.subtask_i}"><span class="toc-no">${s.subtask_i}</span><span class="toc-text" title="${s.text}">${splitExpected(s.text).instruction}</span><span class="toc-meta">${turns}</span>${renderOutcomePill(s.outcome)}</a></li>`,
      ];
    }
    if (block.kind === 'replan') {
      const r = block.replan;
      return [
        html`<li class="toc-replan"><a href="#replan-${r.number}"><span class="toc-no">↻</span><span class="toc-text">Replan ${r.number}${r.data && html`: ${r.data.reason}`}</span></a></li>`,
      ];
    }
    return [];
  });
  return html`<nav class="contents" aria-label="Subtasks"><h2>Timeline</h2><ol>${items}</ol></nav>`;
}
