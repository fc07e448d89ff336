/**
 * A replay as an MCP tool call: progress per step (when the client asked for it), cancellation that
 * aborts the run as Ctrl+C does, and a result with the outcome, the extracts and the final screen; a
 * failure is a tool error naming mime's code, never a transport error.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ReplayEvent, type ReplayOptions, replay } from '@mime-desktop/replay';
import {
  formatStep,
  isMimeError,
  listSteps,
  RUN_FILES,
  type RunSummary,
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
  lock: DesktopLock;
  env: NodeJS.ProcessEnv;
  /** Let replay run a workflow's setup command (the app is not open). */
  runSetup: boolean;
}

/** Options of a replay call besides the params. */
export interface ReplayCall {
  params: Record<string, string>;
  mode?: ReplayOptions['mode'];
  budgets?: ReplayOptions['budgets'];
  fresh?: boolean;
}

export function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `[${code}] ${message}` }] };
}

/** A thrown error as a tool error: mime's with its code, anything else as MIME_INTERNAL. */
export function toolError(error: unknown): CallToolResult {
  if (isMimeError(error)) return errorResult(error.code, error.message);
  return errorResult('MIME_INTERNAL', error instanceof Error ? error.message : String(error));
}

/** A progress line for the events worth one, with the count of steps done. */
function progressOf(event: ReplayEvent): string | null {
  switch (event.type) {
    case 'subtask_start':
      return `subtask ${event.position}/${event.count}: ${event.text}`;
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
  const total = listSteps(entry.workflow).length;
  let progress = 0;
  const onEvent = (event: ReplayEvent) => {
    const message = progressOf(event);
    if (message === null || token === undefined) return;
    if (event.type === 'step' || event.type === 'action') progress += 1;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, total: Math.max(total, progress), message },
      })
      .catch(() => undefined);
  };
  try {
    const result = await context.lock.run(
      `workflow ${JSON.stringify(entry.workflow.task_name)}`,
      () =>
        replay(entry.dir, {
          params: call.params,
          mode: call.mode,
          budgets: call.budgets,
          fresh: call.fresh,
          runSetup: context.runSetup,
          env: context.env,
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
    const screen = await readFile(join(result.dir, RUN_FILES.finalFrame)).catch(() => null);
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
