/** The model checks of `mime doctor`: configured (and from where), then reachable. */
import { type DoctorCheck, failedCheck, isMimeError } from '@mime-desktop/schema';
import { ModelClient } from './client.ts';
import { type ResolveModelConfigOptions, resolveModelConfig } from './config.ts';
import { redactURLCredentials } from './secret.ts';

export interface DiagnoseModelOptions extends ResolveModelConfigOptions {
  /** Skip the check that contacts the endpoint. Default false. */
  offline?: boolean;
}

/** Checks the model settings and, unless offline, that the endpoint answers; never throws for a failed check. */
export async function diagnoseModel(options: DiagnoseModelOptions = {}): Promise<DoctorCheck[]> {
  let config: Awaited<ReturnType<typeof resolveModelConfig>>;
  try {
    config = await resolveModelConfig(options);
  } catch (error) {
    // No model at all is not a failure: record, trace and auto replay and a reflect without a model work.
    const none = isMimeError(error) && error.code === 'MIME_MODEL_NOT_CONFIGURED';
    const check = failedCheck('model config', error);
    return [
      none
        ? {
            ...check,
            status: 'warn',
            fix: 'without one, mime record, trace and auto replay and mime reflect (from the recording alone) work; the agent mode, auto hand-overs and a reflect by the model need one',
          }
        : check,
      { name: 'model endpoint', status: 'skip', detail: 'not checked: no model configured' },
    ];
  }
  const from = (name: 'baseURL' | 'model') => {
    const source = config.sources[name];
    return source.from === 'default' ? 'default' : `${source.from} ${source.name}`.trim();
  };
  const key = config.apiKey ? `key from ${config.sources.apiKey.name}` : 'no API key (local server)';
  const configured: DoctorCheck = {
    name: 'model config',
    status: 'ok',
    detail: `${config.model} (${from('model')}) at ${redactURLCredentials(config.baseURL)} (${from('baseURL')}), ${key}, tools ${config.toolMode}`,
  };
  if (options.offline) {
    return [configured, { name: 'model endpoint', status: 'skip', detail: 'not checked (offline)' }];
  }
  try {
    const ping = await new ModelClient(config).ping();
    const listed = ping.models
      ? `; ${ping.models.includes(config.model) ? 'lists' : 'does not list'} ${config.model}`
      : '';
    return [
      configured,
      {
        name: 'model endpoint',
        status: 'ok',
        detail: `answered in ${Math.round(ping.latencyMs)} ms${listed}`,
      },
    ];
  } catch (error) {
    return [configured, failedCheck('model endpoint', error)];
  }
}
