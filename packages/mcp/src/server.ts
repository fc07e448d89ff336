/**
 * The MCP server of a data root: one tool per ready workflow (its params as arguments, sensitive ones
 * never), the generic tools `list_workflows`, `replay`, `get_run` and `validate`, and resources for
 * each workflow's `schema.json` and each run's summary and report. The tool list follows the disk.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  describeSafety,
  inert,
  isMissingFileError,
  isRequiredParam,
  listHome,
  RUN_FILES,
  RUNS_FOLDER,
  readJsonFile,
  readJsonlFile,
  readRunEntry,
  readTextFile,
  resolveInside,
  runStatus,
  type TaskParam,
  toolAnnotationsOf,
  unfinishedStatus,
  validateWorkflowTarget,
  WORKFLOW_FILE,
  type Workflow,
} from '@mime-desktop/schema';
import {
  McpServer,
  type ReadResourceTemplateCallback,
  type RegisteredTool,
  ResourceTemplate,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CatalogEntry, WorkflowCatalog } from './catalog.ts';
import { NotFoundError, SecretArgumentError } from './errors.ts';
import {
  paramsFrom,
  type ReplayContext,
  ReplayOutput,
  replayForTool,
  type ToolExtra,
  toolError,
} from './replay-tool.ts';

export interface MimeMcpOptions {
  catalog: WorkflowCatalog;
  replay: ReplayContext;
  version: string;
}

const MODE = z
  .enum(['auto', 'trace', 'agent'])
  .optional()
  .describe(
    'auto (default): the recording, the model only where the screen diverged; trace: the recording only; agent: the model every turn',
  );
const FRESH = z
  .boolean()
  .optional()
  .describe("put the app in its recorded starting state first (the workflow's setup.reset, or a restart)");

/**
 * Bounds on what a shared workflow puts into a client's context: its words reach the agent that picks
 * tools, so they are made inert (no escape sequence, NUL or bidi override) and kept short.
 */
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 2000;
const MAX_PARAM_TEXT = 500;

/** A param as a tool argument: its type and description, its recorded example as a hint only. */
function argumentOf(param: TaskParam) {
  const base =
    param.type === 'boolean'
      ? z.boolean()
      : param.type === 'integer'
        ? z.number().int()
        : param.type === 'number'
          ? z.number()
          : z.string();
  const hints = [
    param.example === null ? null : `recorded: ${JSON.stringify(param.example)}`,
    (param.default ?? null) === null ? null : `default: ${JSON.stringify(param.default)}`,
    param.optional ? 'optional' : null,
  ].filter((h) => h !== null);
  const described = base.describe(
    inert(`${param.description || param.name}${hints.length > 0 ? ` (${hints.join('; ')})` : ''}`, {
      maxLength: MAX_PARAM_TEXT,
    }),
  );
  return isRequiredParam(param) ? described : described.optional();
}

/**
 * A workflow tool's input: the workflow's params in a namespace of their own (`params`), so a param
 * named `mode` or `fresh` never meets the replay's options; required unless optional or defaulted.
 */
function inputOf(params: readonly TaskParam[]) {
  const shape = Object.fromEntries(params.map((p) => [p.name, argumentOf(p)] as const));
  const required = params.filter(isRequiredParam).map((p) => p.name);
  // Left out entirely, the error names each param it misses, not only `params`.
  const object = z
    .strictObject(shape, {
      error: (issue) =>
        issue.input === undefined ? `params missing: give ${required.join(', ')} (required)` : undefined,
    })
    .describe("The workflow's params by name");
  return {
    params: params.some(isRequiredParam) ? object : object.optional(),
    mode: MODE,
    fresh: FRESH,
  };
}

const secretEnv = (param: TaskParam) => `MIME_PARAM_${param.name.toUpperCase()}`;

/**
 * What an agent reads to pick the tool: the task, when it succeeds, what it returns, where secrets come
 * from; inert and bounded (it is a shared workflow's text).
 */
function describeWorkflow(workflow: Workflow): string {
  const extracts = workflow.plan.subtasks
    .flatMap((s) => s.steps)
    .flatMap((s) => (s.variable_name ? [s.variable_name] : []));
  const secrets = workflow.task_params.filter((p) => p.sensitive);
  const text = [
    workflow.task_description_user || workflow.detailed_task_description || workflow.task_name,
    workflow.success_criteria && `Succeeds when: ${workflow.success_criteria}`,
    `Replays the recorded desktop workflow "${workflow.task_name}" on this machine's screen (one replay at a time) and returns its outcome${extracts.length > 0 ? ` and the values it reads: ${extracts.join(', ')}` : ''}.`,
    secrets.length > 0 &&
      `Sensitive params are never arguments: ${secrets.map((p) => `${p.name} comes from ${secretEnv(p)}`).join(', ')} in the server's environment.`,
    ...describeSafety(workflow),
  ]
    .filter(Boolean)
    .join('\n');
  return inert(text, { multiline: true, maxLength: MAX_DESCRIPTION });
}

type ReadResource = ReadResourceTemplateCallback;

/** The spec's error for a resource that is not there (2025-11-25, resources: -32002). */
const RESOURCE_NOT_FOUND = -32002;

function resourceNotFound(uri: string, cause?: unknown): McpError {
  const why = cause instanceof Error ? `: ${cause.message}` : '';
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found${why}`, { uri });
}

const text = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});

/** A run folder by its id (`<run_id>` or `<workflow>/<run_id>`), inside the data root. */
async function findRun(
  catalog: WorkflowCatalog,
  name: string,
): Promise<{ entry: CatalogEntry; dir: string }> {
  const [first, second] = name.split('/');
  const candidates = second === undefined ? catalog.entries : catalog.entries.filter((e) => e.id === first);
  const runId = second ?? first ?? '';
  for (const entry of candidates) {
    // Inside the workflow folder, not only inside `.replay`: a `.replay` that links out is not read.
    const dir = await resolveInside(entry.dir, `${RUNS_FOLDER}/${runId}`, 'run').catch(() => null);
    // Only whether it is there (a FIFO or a link out is named when get_run reads it, without waiting).
    if (dir && existsSync(join(dir, RUN_FILES.events))) return { entry, dir };
  }
  throw new NotFoundError('run', name, []);
}

export class MimeMcpServer {
  readonly server: McpServer;
  readonly #options: MimeMcpOptions;
  /** The registered tool of each catalog entry, by tool name. */
  readonly #workflowTools = new Map<string, { entry: CatalogEntry; tool: RegisteredTool }>();
  #unsubscribe: (() => void) | undefined;

  constructor(options: MimeMcpOptions) {
    this.#options = options;
    this.server = new McpServer(
      { name: 'mime', version: options.version },
      {
        capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
        // Re-registering the tools after a change removes and adds each one, each asking for a
        // list_changed: the SDK sends one per tick instead.
        debouncedNotificationMethods: [
          'notifications/tools/list_changed',
          'notifications/resources/list_changed',
        ],
        instructions:
          'Each tool replays a desktop task recorded once with mime on this machine. The desktop is one: one replay at a time.',
      },
    );
    this.#registerGeneric();
    this.#registerResources();
    this.#syncWorkflowTools();
    this.#unsubscribe = options.catalog.onChange(() => {
      this.#syncWorkflowTools();
      this.server.sendResourceListChanged();
    });
  }

  close(): Promise<void> {
    this.#unsubscribe?.();
    return this.server.close();
  }

  /** The connected client's name, printable and short (it names this server's replays to others). */
  #clientName(): string | undefined {
    const name = this.server.server.getClientVersion()?.name;
    return name?.replace(/[^\p{L}\p{N} ._@/-]/gu, '').slice(0, 60) || undefined;
  }

  /**
   * One tool per workflow of the catalog: a tool whose entry changed (added, removed, edited, renamed)
   * is registered again, the others are left as they are.
   */
  #syncWorkflowTools(): void {
    const { catalog } = this.#options;
    const current = new Map(catalog.entries.map((e) => [e.tool, e]));
    for (const [name, registered] of this.#workflowTools) {
      if (current.get(name) === registered.entry) continue;
      registered.tool.remove();
      this.#workflowTools.delete(name);
    }
    for (const entry of catalog.entries) {
      if (this.#workflowTools.has(entry.tool)) continue;
      const tool = this.server.registerTool(
        entry.tool,
        {
          title: inert(entry.workflow.task_name, { maxLength: MAX_TITLE }),
          description: describeWorkflow(entry.workflow),
          inputSchema: inputOf(entry.workflow.task_params.filter((p) => !p.sensitive)),
          outputSchema: ReplayOutput,
          annotations: toolAnnotationsOf(entry.workflow),
        },
        (args, extra: ToolExtra) =>
          replayForTool(
            entry,
            {
              params: paramsFrom(args.params ?? {}, entry.workflow.task_params),
              mode: args.mode,
              fresh: args.fresh,
              client: this.#clientName(),
            },
            extra,
            this.#options.replay,
          ),
      );
      this.#workflowTools.set(entry.tool, { entry, tool });
    }
  }

  #registerGeneric(): void {
    const { catalog } = this.#options;
    this.server.registerTool(
      'list_workflows',
      {
        description:
          'The workflows recorded under the data root: tool name, params, state and last run (its outcome, or running / interrupted while it has none).',
        inputSchema: {},
        annotations: { readOnlyHint: true },
      },
      async () => {
        const { workflows } = await listHome(catalog.home);
        return text({
          workflows: workflows.map((w) => ({
            id: w.session_id,
            name: w.name,
            tool: catalog.find(w.session_id)?.tool ?? null,
            state: w.state,
            params: w.params,
            problem: w.problem,
            last_run: w.last_run && {
              run_id: w.last_run.run_id,
              outcome: runStatus(w.last_run),
              state: w.last_run.state,
              started_at: w.last_run.started_at,
            },
          })),
        });
      },
    );
    this.server.registerTool(
      'replay',
      {
        description:
          "Replays a workflow by its id or tool name with params (sensitive ones come from MIME_PARAM_<NAME> in the server's environment).",
        inputSchema: {
          workflow: z.string().describe('The workflow id (its folder under workflows/) or its tool name'),
          params: z.record(z.string(), z.string()).optional().describe('Param values by name'),
          mode: MODE,
          fresh: FRESH,
          budgets: z
            .object({
              iterations: z.number().int().positive().optional(),
              modelCalls: z.number().int().nonnegative().optional(),
              replans: z.number().int().nonnegative().optional(),
              wallTimeMs: z.number().int().positive().optional(),
            })
            .optional(),
        },
        outputSchema: ReplayOutput,
        annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      },
      async (args, extra) => {
        const entry = catalog.find(args.workflow);
        if (!entry)
          return toolError(
            new NotFoundError(
              'workflow',
              args.workflow,
              catalog.entries.map((e) => e.id),
            ),
          );
        const secret = entry.workflow.task_params.find(
          (p) => p.sensitive && args.params?.[p.name] !== undefined,
        );
        if (secret) {
          return toolError(new SecretArgumentError(secret.name, secretEnv(secret)));
        }
        return replayForTool(
          entry,
          {
            params: args.params ?? {},
            mode: args.mode,
            fresh: args.fresh,
            budgets: args.budgets,
            client: this.#clientName(),
          },
          extra,
          this.#options.replay,
        );
      },
    );
    this.server.registerTool(
      'get_run',
      {
        description:
          'A run by its id (or <workflow>/<run_id>): summary, outcome (running or interrupted while it has no summary), extracts, the checks it verified on the screen, and its report.',
        inputSchema: { run: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ run }) => {
        try {
          const { dir } = await findRun(catalog, run);
          // A run still going (or killed) has no summary yet.
          const summary = (await readJsonFile(join(dir, RUN_FILES.summary)).catch((error: unknown) => {
            if (isMissingFileError(error)) return null;
            throw error;
          })) as { outcome?: string; extracts?: unknown } | null;
          const state = summary ? 'ended' : (await readRunEntry(dir, basename(dir))).state;
          const events = await readJsonlFile(join(dir, RUN_FILES.events));
          const verified = events.flatMap(({ value }) => {
            const e = value as { type?: string; subtask_i?: number; data?: Record<string, unknown> };
            return e.type === 'verify' ? [{ subtask_i: e.subtask_i, ...e.data }] : [];
          });
          const report = join(dir, RUN_FILES.report);
          return text({
            run_dir: dir,
            outcome: summary?.outcome ?? unfinishedStatus(state),
            state,
            extracts: summary?.extracts ?? {},
            summary,
            verified,
            report: existsSync(report) ? report : null,
          });
        } catch (error) {
          return toolError(error);
        }
      },
    );
    this.server.registerTool(
      'validate',
      {
        description:
          "Checks a workflow's schema.json: its problems with line and column, or that it is valid.",
        inputSchema: { workflow: z.string().describe('The workflow id or tool name') },
        annotations: { readOnlyHint: true },
      },
      async ({ workflow }) => {
        try {
          const dir =
            catalog.find(workflow)?.dir ??
            (await resolveInside(join(catalog.home, 'workflows'), workflow, 'workflow'));
          return text(await validateWorkflowTarget(dir));
        } catch (error) {
          return toolError(error);
        }
      },
    );
  }

  #registerResources(): void {
    const { catalog } = this.#options;
    /** Each resource template and how it is read, in the order they are matched. */
    const readers: { template: ResourceTemplate; read: ReadResource }[] = [];
    const register = (
      name: string,
      template: ResourceTemplate,
      metadata: { description: string; mimeType: string },
      read: ReadResource,
    ) => {
      this.server.registerResource(name, template, metadata, read);
      readers.push({ template, read });
    };
    register(
      'workflow',
      new ResourceTemplate('mime://workflows/{workflow}/schema.json', {
        list: async () => ({
          resources: catalog.entries.map((e) => ({
            uri: `mime://workflows/${e.id}/schema.json`,
            name: `${inert(e.workflow.task_name, { maxLength: MAX_TITLE })} (schema.json)`,
            mimeType: 'application/json',
          })),
        }),
      }),
      { description: "A workflow's schema.json", mimeType: 'application/json' },
      async (uri, { workflow }) => {
        const entry = catalog.find(String(workflow));
        if (!entry)
          throw new NotFoundError(
            'workflow',
            String(workflow),
            catalog.entries.map((e) => e.id),
          );
        return {
          contents: [
            {
              uri: uri.href,
              mimeType: 'application/json',
              text: await readTextFile(join(entry.dir, WORKFLOW_FILE)),
            },
          ],
        };
      },
    );
    const runFile = (file: string, mimeType: string) =>
      register(
        `run ${file}`,
        new ResourceTemplate(`mime://workflows/{workflow}/runs/{run}/${file}`, {
          list: async () => {
            const { workflows } = await listHome(catalog.home);
            return {
              resources: workflows.flatMap((w) =>
                w.runs.slice(-20).map((r) => ({
                  uri: `mime://workflows/${w.session_id}/runs/${r.run_id}/${file}`,
                  name: `${w.name ?? w.session_id}: run ${r.run_id} (${file})`,
                  mimeType,
                })),
              ),
            };
          },
        }),
        { description: `A run's ${file}`, mimeType },
        async (uri, { workflow, run }) => {
          const { dir } = await findRun(catalog, `${workflow}/${run}`);
          return { contents: [{ uri: uri.href, mimeType, text: await readTextFile(join(dir, file)) }] };
        },
      );
    runFile(RUN_FILES.summary, 'application/json');
    runFile(RUN_FILES.report, 'text/html');
    // resources/read answers a resource that is not there with -32002 (the spec's "Resource not
    // found", with its uri), where the SDK's own handler says -32602 or -32603.
    this.server.server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const { uri } = request.params;
      for (const { template, read } of readers) {
        const variables = template.uriTemplate.match(uri);
        if (!variables) continue;
        try {
          return await read(new URL(uri), variables, extra);
        } catch (error) {
          if (error instanceof NotFoundError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
            throw resourceNotFound(uri, error);
          }
          throw error;
        }
      }
      throw resourceNotFound(uri);
    });
  }
}
