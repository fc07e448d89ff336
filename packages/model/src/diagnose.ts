/** The model checks of `mime doctor`: configured (and from where), then reachable. */
import { type DoctorCheck, failedCheck } from '@mime-desktop/schema';
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
    return [
      failedCheck('model config', error),
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
