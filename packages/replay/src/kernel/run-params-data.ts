/**
 * A run's checked params ({@link RunParams}) as plain data, to hand a run in another process (a batch
 * worker) the params resolved here, so that they are not resolved again there: each non-sensitive
 * param's value and where it came from. A sensitive param is only named (pending): its value never
 * goes in the data (which may cross a pipe or be logged), but by the environment (`MIME_PARAM_<NAME>`),
 * and the receiving run collects it there as it collects any secret. An empty one (a rows file's empty
 * cell) hides nothing and is carried as a value: an empty `MIME_PARAM_<NAME>` counts as none.
 */
import type { Workflow } from '@mime-desktop/schema';
import { ReplayOptionError } from '../errors.ts';
import type { ParamSource, ParamValue, RunParams } from './materialize.ts';

export interface RunParamsData {
  /** Each non-sensitive param's value and its source, or null: an optional param given none. */
  resolved: Record<string, { value: string; source: ParamSource } | null>;
  /** The sensitive params, by name: their values come from the receiving run's environment. */
  pending: string[];
}

/** `given` as plain data (JSON), without any sensitive value. */
export function runParamsData(given: RunParams): RunParamsData {
  const resolved: RunParamsData['resolved'] = Object.create(null);
  const pending: string[] = [];
  for (const param of given.workflow.task_params) {
    const value = given.resolved.get(param.name);
    if (param.sensitive && !(value?.kind === 'value' && value.value === '')) {
      pending.push(param.name);
      continue;
    }
    if (value === undefined) continue;
    resolved[param.name] = value.kind === 'value' ? { value: value.value, source: value.source } : null;
  }
  return { resolved, pending };
}

/**
 * The {@link RunParams} that `data` holds, for `workflow` (the run's own reading of the workflow the
 * params were checked against): nothing is resolved again. Throws `MIME_REPLAY_OPTION_INVALID` when
 * the data does not name the workflow's params as it names them (the workflow changed in between).
 */
export function runParamsFromData(workflow: Workflow, data: RunParamsData): RunParams {
  const resolved = new Map<string, Exclude<ParamValue, { kind: 'invalid' }>>();
  const pending = [];
  const unlike: string[] = [];
  const pendingNames = new Set(data.pending);
  for (const param of workflow.task_params) {
    const value = Object.hasOwn(data.resolved, param.name) ? data.resolved[param.name] : undefined;
    if (param.sensitive && pendingNames.delete(param.name)) pending.push(param);
    else if (value !== undefined && (!param.sensitive || value?.value === ''))
      resolved.set(param.name, value === null ? { kind: 'unset' } : { kind: 'value', ...value });
    else unlike.push(param.name);
  }
  const named = new Set(workflow.task_params.map((p) => p.name));
  const differ = new Set([
    ...unlike,
    ...pendingNames,
    ...Object.keys(data.resolved).filter((name) => !named.has(name)),
  ]);
  if (differ.size > 0) {
    throw new ReplayOptionError(
      `the params were checked against another version of the workflow (${[...differ].join(', ')} differ): check them again against the workflow as it is now`,
    );
  }
  return { workflow, resolved, pending };
}
