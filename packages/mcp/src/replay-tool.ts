/**
 * A replay as an MCP tool call: progress per step (when the client asked for it), cancellation that
 * aborts the run as Ctrl+C does, and a result with the outcome, the extracts and the final screen; a
 * failure is a tool error naming mime's code, never a transport error.
 */
import { join } from 'node:path';
import {
  checkParams,
  type OcrEngine,
  type ReplayEvent,
  type ReplayOptions,
  replay,
} from '@mime-desktop/replay';
import {
  formatStep,
  isMimeError,
  listSteps,
  loadWorkflow,
  MAX_IMAGE_BYTES,
  RUN_FILES,
  type RunSummary,
  readRegularFile,
  type TaskParam,
} from '@mime-desktop/schema';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CatalogEntry } from './catalog.ts';
import type { DesktopLock } from './desktop-lock.ts';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every replay tool returns as structured content. */
export const ReplayOutput = {
  outcome: z.enum(['success', 'failed', 'aborted']),
  code: z
    .string()
    .nullable()
    .describe("mime's error code when it did not succeed, e.g. MIME_REPLAY_DIVERGENCE"),
  reason: z.string().nullable(),
  extracts: z.record(z.string(), z.string()).describe('Values the workflow read from the screen'),
  model_calls: z.number().int(),
  duration_ms: z.number(),
  run_id: z.string(),
  run_dir: z.string(),
  report: z.string().nullable().describe('The run report (report.html)'),
};

/** How the server replays: the lock of the desktop, the environment (MIME_PARAM_<NAME>, the model). */
export interface ReplayContext {
  /** Orders this server's own calls (first come, first served; a call waits for one being cancelled). */
  lock: DesktopLock;
  /** Wait while another process holds the display (the machine-wide lock), instead of a busy error. */
  queue: boolean;
  env: NodeJS.ProcessEnv;
  /** Let replay run a workflow's setup command (the app is not open). */
  runSetup: boolean;
  /**
   * One OCR engine for every replay of the server, so its worker (about 180 MB, which the process
   * keeps once it has it) starts once rather than per replay; its owner closes it. Default: each replay's own.
   */
  ocr?: OcrEngine;
}

/** Options of a replay call besides the params. */
export interface ReplayCall {
  params: Record<string, string>;
  mode?: ReplayOptions['mode'];
  budgets?: ReplayOptions['budgets'];
  fresh?: boolean;
  /** The client's name (from its initialize request), for a busy error others get. */
  client?: string;
}

export function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `[${code}] ${message}` }] };
}

/** A thrown error as a tool error: mime's with its code, anything else as MIME_INTERNAL. */
export function toolError(error: unknown): CallToolResult {
  if (isMimeError(error)) return errorResult(error.code, error.message);
  return errorResult('MIME_INTERNAL', error instanceof Error ? error.message : String(error));
}

/** The message of a progress notification: one for each step or agent action done, none else. */
function progressOf(event: ReplayEvent): string | null {
  switch (event.type) {
    case 'step':
      return `${formatStep(event.step_i)} ${event.executed_by}: ${event.description}`;
    case 'action':
      return `agent: ${event.description}`;
    default:
      return null;
  }
}

function summaryText(summary: RunSummary, report: string | null): string {
  const extracts = Object.entries(summary.extracts).map(([k, v]) => `${k} = ${v}`);
  const head =
    summary.outcome === 'success'
      ? `${summary.task_name}: success in ${(summary.duration_ms / 1000).toFixed(1)} s`
      : `${summary.task_name}: ${summary.outcome} [${summary.code}] ${summary.reason ?? ''}`;
  return [head, ...extracts, `${summary.usage.calls} model calls`, `report: ${report ?? 'none'}`].join('\n');
}

/** Replays a workflow of the catalog for a tool call. */
export async function replayForTool(
  entry: CatalogEntry,
  call: ReplayCall,
  extra: ToolExtra,
  context: ReplayContext,
): Promise<CallToolResult> {
  const token = extra._meta?.progressToken;
  const steps = listSteps(entry.workflow).length;
  let progress = 0;
  let subtask = '';
  // Progress goes up by one with each step or agent action (never repeats, never starts at 0); the total
  // is the recorded steps, raised when the agent acts more often than that.
  const onEvent = (event: ReplayEvent) => {
    if (event.type === 'subtask_start') subtask = `subtask ${event.position}/${event.count}`;
    const message = progressOf(event);
    if (message === null || token === undefined) return;
    progress += 1;
    const total = Math.max(steps, progress);
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, total, message: `${message} (${subtask})` },
      })
      .catch(() => undefined);
  };
  try {
    // Read once for this run (the catalog's copy may be older); a missing, unknown or mistyped param
    // is refused before the desktop is asked for: nothing replays. The run resolves none again.
    const loaded = await loadWorkflow(entry.dir);
    const checkedParams = checkParams(loaded.workflow, call.params);
    const result = await context.lock.run(
      `workflow ${JSON.stringify(entry.workflow.task_name)}`,
      () =>
        replay(loaded, {
          checkedParams,
          mode: call.mode,
          budgets: call.budgets,
          fresh: call.fresh,
          runSetup: context.runSetup,
          queue: context.queue,
          holder: `mime mcp (${call.client ?? 'an MCP client'})`,
          env: context.env,
          ocr: context.ocr,
          signal: extra.signal,
          onEvent,
        }),
      extra.signal,
    );
    const { summary } = result;
    const structured = {
      outcome: summary.outcome,
      code: summary.code,
      reason: summary.reason,
      extracts: summary.extracts,
      model_calls: summary.usage.calls,
      duration_ms: summary.duration_ms,
      run_id: summary.run_id,
      run_dir: result.dir,
      report: result.report,
    };
    const content: CallToolResult['content'] = [{ type: 'text', text: summaryText(summary, result.report) }];
    const screen = await readRegularFile(join(result.dir, RUN_FILES.finalFrame), MAX_IMAGE_BYTES).catch(
      () => null,
    );
    if (screen) content.push({ type: 'image', data: screen.toString('base64'), mimeType: 'image/png' });
    return { content, structuredContent: structured, isError: summary.outcome !== 'success' };
  } catch (error) {
    return toolError(error);
  }
}

/** The params a tool call gives, as replay takes them (strings), sensitive ones never among them. */
export function paramsFrom(
  args: Record<string, unknown>,
  params: readonly TaskParam[],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const param of params) {
    const value = args[param.name];
    if (!param.sensitive && value !== undefined && value !== null) values[param.name] = String(value);
  }
  return values;
}
