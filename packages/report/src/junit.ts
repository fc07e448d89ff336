/**
 * JUnit XML for CI test reporters (Jenkins, GitLab, GitHub actions that read JUnit): a single run is a
 * suite with one test case per subtask; a batch is a suite with one test case per row. Built with
 * junit-report-builder; values are shown as the run shows them (sensitive ones as `{name}`).
 */
import {
  type BatchFile,
  formatSubtask,
  RUN_FILES,
  type RunSummary,
  writeFileAtomically,
} from '@mime-desktop/schema';
import type { Builder, TestCase } from 'junit-report-builder';
import * as junitModule from 'junit-report-builder';

// CommonJS code (`module.exports = builder`) under types that declare an ES default: from ESM the
// builder is the namespace's `default` at run time, which the types place one level deeper.
const junit = junitModule.default as unknown as Builder;

const seconds = (ms: number) => ms / 1000;

/**
 * The XML, without the `skipped` count junit-report-builder puts on the root `<testsuites>`: the
 * Jenkins xUnit schema (junit-10.xsd) and Jenkins itself refuse it there (it stays on `<testsuite>`).
 */
function build(builder: Builder): string {
  return builder.build().replace(/^(<testsuites\b[^>]*?) skipped="\d+"/m, '$1');
}

type Outcome = RunSummary['subtasks'][number]['outcome'] | BatchFile['rows'][number]['outcome'];

/** Marks a test case by what became of its subtask or row. */
function mark(test: TestCase, outcome: Outcome, failure: { code: string | null; reason: string | null }) {
  const message = failure.reason ?? outcome;
  const type = failure.code ?? outcome.toUpperCase();
  if (outcome === 'failed' || outcome === 'crashed') test.failure(message, type);
  else if (outcome === 'aborted') test.error(message, type);
  else if (outcome === 'not_run' || outcome === 'replanned') test.skipped();
}

/**
 * A run as JUnit XML: a test case per subtask (`replanned` and `not_run` ones skipped), each with the
 * report's path as its output. A run that failed or was aborted outside a failed subtask (a budget ran
 * out between subtasks, Ctrl+C) gets a test case `run` of its own for it.
 */
export function runJunit(summary: RunSummary, report: string | null): string {
  const builder = junit.newBuilder();
  const suite = builder
    .testSuite()
    .name(summary.task_name)
    .timestamp(summary.started_at)
    .time(seconds(summary.duration_ms))
    .property('run_id', summary.run_id)
    .property('mode', summary.mode);
  const failing = summary.subtasks.findLast((s) => s.outcome === 'failed');
  for (const subtask of summary.subtasks) {
    const test = suite
      .testCase()
      .className(summary.task_name)
      .name(`${formatSubtask(subtask.subtask_i)}: ${subtask.text}`)
      .time(seconds(subtask.duration_ms));
    if (subtask !== failing) mark(test, subtask.outcome, { code: null, reason: null });
    else mark(test, summary.outcome === 'aborted' ? 'aborted' : 'failed', summary);
    if (report) test.standardOutput(report);
  }
  if (summary.outcome !== 'success' && !failing) {
    const test = suite.testCase().className(summary.task_name).name('run');
    mark(test, summary.outcome, summary);
    if (report) test.standardOutput(report);
  }
  return build(builder);
}

/** A batch as JUnit XML: a test case per row, named by its params, with its run's report. */
export function batchJunit(batch: BatchFile): string {
  const builder = junit.newBuilder();
  const suite = builder.testSuite().name(batch.task_name);
  if (batch.started_at) suite.timestamp(batch.started_at);
  for (const row of batch.rows) {
    const params = Object.entries(row.params)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ');
    const test = suite
      .testCase()
      .className(batch.task_name)
      .name(`row ${row.row}${params && `: ${params}`}`)
      .time(seconds(row.duration_ms));
    mark(test, row.outcome, row);
    if (row.run) test.standardOutput(`${row.run}/${RUN_FILES.report}`);
  }
  return build(builder);
}

/** Writes a JUnit file atomically. */
export async function writeJunit(file: string, xml: string): Promise<void> {
  // A file the user named (`--reporter junit <file>`): it may be a link they keep.
  await writeFileAtomically(file, xml.endsWith('\n') ? xml : `${xml}\n`, { inside: false });
}
