/**
 * batch.html: every row of a batch at a glance (outcome, params, time, model calls) with a link to
 * each run's report.html; one self-contained file, no network, no script.
 */
import { join } from 'node:path';
import { BATCH_FILES, type BatchFile, RUN_FILES, writeFileAtomically } from '@mime-desktop/schema';
import { html } from './html.ts';
import { renderHead } from './render-head.ts';

const BATCH_CSS = `
table.batch { border-collapse: collapse; width: 100%; font-size: 14px; }
table.batch th, table.batch td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
`;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The page of a batch; links are relative to the batch folder, where the page is written. */
export function renderBatchPage(batch: BatchFile): string {
  const { counts } = batch;
  const verdict = counts.failed === 0 && counts.not_run === 0 ? 'success' : 'failed';
  const rows = batch.rows.map((row) => {
    const params = Object.entries(row.params).map(([k, v]) => html`<code>${k}</code>=${v} `);
    const report = row.run ? `${row.run}/${RUN_FILES.report}` : null;
    return html`<tr class="row-${row.outcome}" id="row-${row.row}">
<td>${row.row}</td>
<td><span class="pill pill-${row.outcome === 'success' ? 'success' : row.outcome === 'not_run' ? 'not_run' : 'failed'}">${row.outcome.replace('_', ' ')}</span>${row.code && html` <code>${row.code}</code>`}</td>
<td>${params}</td>
<td>${seconds(row.duration_ms)}</td>
<td>${row.model_calls}</td>
<td>${report ? html`<a href="${report}">report</a>` : html`<span class="muted">none</span>`}${row.attempts > 1 && html` <span class="muted">(${row.attempts} attempts)</span>`}</td>
<td class="muted">${row.reason ?? ''}</td>
</tr>`;
  });
  return html`<!doctype html>
<html lang="en">
${renderHead(
  `${batch.task_name}: batch ${verdict} (${counts.success}/${batch.rows.length}) · mime`,
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'",
  BATCH_CSS,
)}
<body>
<header class="verdict verdict-${verdict}"><h1>${batch.task_name}</h1>
<p>${counts.success} of ${batch.rows.length} rows succeeded, ${counts.failed} failed, ${counts.not_run} not run${batch.workers > 0 && html` · ${batch.workers} worker${batch.workers === 1 ? '' : 's'}`}</p>
<p class="muted">workflow <code>${batch.workflow}</code>${batch.rows_file && html` · rows <code>${batch.rows_file}</code>`}${batch.started_at && html` · started ${batch.started_at}`}</p></header>
<main><table class="batch"><thead><tr><th>row</th><th>outcome</th><th>params</th><th>time</th><th>model calls</th><th>run</th><th>reason</th></tr></thead>
<tbody>${rows}</tbody></table></main>
<footer>Sensitive values appear only as {name}. Written by mime.</footer>
</body>
</html>
`.text;
}

/** Writes `batch.json` and `batch.html` into a batch folder (atomically, 0600); returns the page's path. */
export async function writeBatchFiles(batchDir: string, batch: BatchFile): Promise<string> {
  await writeFileAtomically(join(batchDir, BATCH_FILES.batch), `${JSON.stringify(batch, null, 2)}\n`);
  const page = join(batchDir, BATCH_FILES.html);
  await writeFileAtomically(page, renderBatchPage(batch));
  return page;
}
