/** The whole report page: one file, no network (a Content-Security-Policy forbids it), no required script. */
import { createHash } from 'node:crypto';
import type { TimelineBlock } from './build-timeline.ts';
import type { EmbeddedImage } from './embed-images.ts';
import { formatClock } from './format.ts';
import { html, trustedHtml } from './html.ts';
import type { RunArtifacts } from './read-run.ts';
import { renderHead } from './render-head.ts';
import { renderContents, renderHeader } from './render-header.ts';
import { renderTimeline } from './render-timeline.ts';
import { REPORT_SCRIPT } from './report-style.ts';
import type { RunOverview } from './summarize-run.ts';

export interface ReportDocument {
  run: RunArtifacts;
  overview: RunOverview;
  blocks: readonly TimelineBlock[];
  images: ReadonlyMap<string, EmbeddedImage>;
}

/** Only inline styles, data: images and the report's own script (by hash): nothing else may load or run. */
function contentSecurityPolicy(): string {
  const scriptHash = createHash('sha256').update(REPORT_SCRIPT).digest('base64');
  return `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; form-action 'none'; base-uri 'none'`;
}

export function renderDocument(doc: ReportDocument): string {
  const { run, overview } = doc;
  const memory = run.taskMemory;
  const page = html`<!doctype html>
<html lang="en">
${renderHead(`${overview.taskName}: ${overview.outcome} · mime run ${overview.runId}`, contentSecurityPolicy())}
<body>
${renderHeader(overview, run.workflow)}
${renderContents(doc.blocks)}
<main class="timeline">
${renderTimeline(doc.blocks, { images: doc.images, screen: overview.screen, workflow: run.workflow })}
</main>
${memory?.task_memory && html`<section class="final"><h3>Task memory at the end</h3><p>${memory.task_memory}</p></section>`}
<footer>Run folder <code>${run.dir}</code> · started ${formatClock(overview.startedAt)} · report by <code>mime report</code>; sensitive values appear only as {name}.</footer>
<script>${trustedHtml(REPORT_SCRIPT)}</script>
</body>
</html>
`;
  return page.text;
}
