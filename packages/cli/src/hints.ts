/**
 * What the command line adds to an error of the libraries: their messages name options and
 * environment variables; here the same fix is named by its flag.
 */
const HINTS: Record<string, string> = {
  MIME_MODEL_NOT_CONFIGURED:
    'On the command line: --base-url, --model and --config (the API key only from the environment).',
  MIME_MODEL_AUTH:
    'The API key comes from MIME_API_KEY or OPENAI_API_KEY (never a flag: it would show in `ps`).',
  MIME_PARAMS_INVALID: 'Give values with --param name=value or --params-file params.json.',
  MIME_BUDGET_ITERATIONS: 'Raise it with --max-iterations.',
  MIME_BUDGET_MODEL_CALLS: 'Raise it with --max-model-calls.',
  MIME_BUDGET_REPLANS: 'Raise it with --max-replans.',
  MIME_BUDGET_WALL_TIME: 'Raise it with --max-duration <seconds>.',
  MIME_SETUP_FAILED:
    "--run-setup lets replay run the workflow's setup command; --step-timeout waits longer for each step.",
  MIME_REPLAY_DIVERGENCE:
    'Modes: --mode auto re-finds moved targets and asks the model only where needed; --mode agent lets the model drive.',
  MIME_TRACE_UNAVAILABLE: 'Replay it with --mode auto or --mode agent.',
  MIME_MODEL_FORBIDDEN: 'Allow the model with --max-model-calls <n>, or leave the flag out.',
};

/** The key of a run whose mode hands over to the model, in a run not allowed one (`--max-model-calls 0`). */
export const MODEL_FORBIDDEN = 'model-forbidden';

/** Where a hint differs by the run's mode (or {@link MODEL_FORBIDDEN}): what the user can do next depends on it. */
const MODE_HINTS: Record<string, Record<string, string>> = {
  MIME_REPLAY_DIVERGENCE: {
    auto: 'On the command line: --base-url and --model give auto a model for such steps; --mode agent lets the model drive.',
    agent: '',
    // --max-model-calls 0: the run was not allowed the model it had.
    [MODEL_FORBIDDEN]:
      'This run was not allowed the model (--max-model-calls 0): allow some calls and auto hands such a step to the model.',
  },
};

/** The command-line hint for an error code (of a run in `mode`, or {@link MODEL_FORBIDDEN}), or null. */
export function hintFor(code: string | null, mode?: string): string | null {
  if (code === null) return null;
  const byMode = mode === undefined ? undefined : MODE_HINTS[code]?.[mode];
  if (byMode !== undefined) return byMode || null;
  return HINTS[code] ?? null;
}
