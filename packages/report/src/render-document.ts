/** The whole report page: one file, no network (a Content-Security-Policy forbids it), no required script. */

import { createHash } from 'node:crypto';
import { formatStep, formatSubtask, type HealFile, RUN_FILES, type Workflow } from '@mime-desktop/schema';
import type { TimelineBlock } from './build-timeline.ts';
import type { EmbeddedImage } from './embed-images.ts';
import { formatClock } from './format.ts';
import { html, trustedHtml } from './html.ts';
import type { RunArtifacts } from './read-run.ts';
import { renderCallout } from './render-callout.ts';
import { causeOf, renderCause } from './render-cause.ts';
import { renderHead } from './render-head.ts';
import { renderContents, renderHeader } from './render-header.ts';
import { renderShot } from './render-shot.ts';
import { renderTimeline } from './render-timeline.ts';
import { REPORT_SCRIPT } from './report-style.ts';
import type { RunOverview } from './summarize-run.ts';

export interface ReportDocument {
  run: RunArtifacts;
  overview: RunOverview;
  blocks: readonly TimelineBlock[];
  images: ReadonlyMap<string, EmbeddedImage>;
  /** The recording's frames, by path in the workflow folder. */
  recorded: ReadonlyMap<string, EmbeddedImage>;
  /** The recorded frame of each reference step, by step index. */
  recordedFrames: ReadonlyMap<number, string>;
}

/** The run's own files, linked (relative: they sit beside report.html). */
const LINKED_FILES = [RUN_FILES.summary, RUN_FILES.events, RUN_FILES.log, RUN_FILES.textSummary] as const;

function renderFiles(files: ReadonlySet<string>) {
  const present = LINKED_FILES.filter((name) => files.has(name));
  if (present.length === 0) return null;
  return html`<p class="run-files"><span class="label">Files</span> ${present.map((name) => html`<a href="${name}">${name}</a>`)}</p>`;
}

/** The screen as the run left it, after its last action. */
function renderFinalScreen(images: ReadonlyMap<string, EmbeddedImage>) {
  const image = images.get(RUN_FILES.finalFrame);
  if (!image) return null;
  return html`<section class="final" id="final-screen"><h3>The screen at the end</h3><div class="final-screen">${renderShot({ id: 'final', name: RUN_FILES.finalFrame, image, alt: 'The screen when the run ended' })}</div></section>`;
}

/** Only inline styles, data: images and the report's own script (by hash): nothing else may load or run. */
function contentSecurityPolicy(): string {
  const scriptHash = createHash('sha256').update(REPORT_SCRIPT).digest('base64');
  return `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; form-action 'none'; base-uri 'none'`;
}

/** What a heal of this run would change in its workflow. */
function renderHeal(heal: HealFile, dir: string, workflow: Workflow | null) {
  const steps = heal.regrounded.map((i) => formatStep(i)).join(', ');
  const agent = heal.agent_subtasks.map((s) => formatSubtask(s)).join(', ');
  const changes = [
    steps && `${steps} found at a new place`,
    agent && `${agent} done by the agent (${heal.actions.filter((a) => a.by === 'agent').length} actions)`,
  ].filter(Boolean);
  // A workflow without a recording (hand-written, or from ai_mime's files alone): the run's actions
  // would be its first recording.
  const unrecorded = workflow?.plan.subtasks.every((s) => s.steps.every((step) => step.source === null));
  return renderCallout(
    'info',
    unrecorded ? 'The workflow has no recording' : 'The workflow is out of date on this screen',
    html`A heal would record it ${unrecorded ? '' : 'again '}from this run: ${changes.join('; ')}. Show the change with <code>mime heal ${dir}</code>, write it with <code>--apply</code>; the next auto replay then needs no model here.`,
  );
}

export function renderDocument(doc: ReportDocument): string {
  const { run, overview } = doc;
  const memory = run.taskMemory;
  const cause = causeOf(run, overview);
  const page = html`<!doctype html>
<html lang="en">
${renderHead(`${overview.taskName}: ${overview.outcome} · mime run ${overview.runId}`, contentSecurityPolicy())}
<body>
${renderHeader(overview, run.workflow, cause && renderCause(cause, overview, doc.images))}
<main>
${run.heal && renderHeal(run.heal, run.dir, run.workflow)}
${renderContents(doc.blocks)}
<div class="timeline">
${renderTimeline(doc.blocks, {
  images: doc.images,
  recorded: doc.recorded,
  recordedFrames: doc.recordedFrames,
  screen: overview.screen,
  workflow: run.workflow,
  stopped: overview.code === null ? null : { code: overview.code, reason: overview.reason },
})}
</div>
${renderFinalScreen(doc.images)}
${memory?.task_memory && html`<section class="final"><h3>Task memory at the end</h3><p>${memory.task_memory}</p></section>`}
</main>
<footer>${renderFiles(run.files)}Run folder <code>${run.dir}</code> · started ${formatClock(overview.startedAt)} · report by <code>mime report</code>; sensitive values appear only as {name}.</footer>
<script>${trustedHtml(REPORT_SCRIPT)}</script>
</body>
</html>
`;
  return page.text;
}
