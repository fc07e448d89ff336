import { ModelClient, resolveModelConfig } from '@mime-desktop/model';
import { createDesktop, probeDisplay } from '@mime-desktop/os-io';
import { isMimeError } from '@mime-desktop/schema';

/** One check of `mime doctor`. */
export interface DoctorCheck {
  /** Short name, e.g. `node`, `display`, `model endpoint`. */
  name: string;
  /** `ok`, `fail` (record/reflect/replay cannot work), or `skip` (not checked, see detail). */
  status: 'ok' | 'fail' | 'skip';
  /** What was found. */
  detail: string;
  /** How to fix it, when it failed. */
  fix?: string;
}

export interface DoctorOptions {
  /** Skip checks that touch the network (the model endpoint). Default false. */
  offline?: boolean;
  /** Model config file, as `--config`. Default: `$MIME_CONFIG`, else `~/.config/mime/config.json`. */
  config?: string;
  /** Environment to read. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

const MIN_NODE = [20, 19] as const;

export function checkNode(version: string = process.versions.node): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: 'node', status: 'ok', detail: `Node ${version}` }
    : {
        name: 'node',
        status: 'fail',
        detail: `Node ${version} is too old`,
        fix: `install Node ${MIN_NODE.join('.')} or newer`,
      };
}

/** Turns an error from a probe into a failed check; mime's messages already say how to fix them. */
export function failedCheck(name: string, error: unknown): DoctorCheck {
  const message = error instanceof Error ? error.message : String(error);
  const code = isMimeError(error) ? ` [${error.code}]` : '';
  return { name, status: 'fail', detail: `${message}${code}` };
}

export async function checkDisplay(env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck> {
  const facts = await probeDisplay({ env });
  if (!facts.reachable) {
    const [detail = 'no display', ...fix] = (facts.problem ?? 'no display').split(/(?<=\.) /);
    return { name: 'display', status: 'fail', detail, fix: fix.join(' ') || undefined };
  }
  const where = facts.display ? `${facts.sessionType} display ${facts.display}` : facts.sessionType;
  const limits = facts.limitations.length > 0 ? ` (${facts.limitations.join(' ')})` : '';
  return { name: 'display', status: 'ok', detail: `${where}${limits}` };
}

/** Capture and hooks on a reachable display: what record and replay use. */
export async function checkDesktop(): Promise<DoctorCheck[]> {
  let desktop: Awaited<ReturnType<typeof createDesktop>>;
  try {
    desktop = await createDesktop({ failSafe: false });
  } catch (error) {
    return [
      failedCheck('capture', error),
      { name: 'input hooks', status: 'skip', detail: 'not checked: no desktop' },
    ];
  }
  const checks: DoctorCheck[] = [];
  try {
    const started = performance.now();
    const frame = await desktop.captureFrame();
    const ms = performance.now() - started;
    const { width, height } = frame.logical;
    checks.push({
      name: 'capture',
      status: 'ok',
      detail: `${width}x${height} logical px, scale ${frame.scale}, ${ms.toFixed(1)} ms a frame`,
    });
  } catch (error) {
    checks.push(failedCheck('capture', error));
  }
  try {
    const hooks = await desktop.startHooks(() => undefined);
    await hooks.stop();
    checks.push({
      name: 'input hooks',
      status: 'ok',
      detail: 'global mouse and keyboard hooks start (recording, fail-safe hotkey)',
    });
  } catch (error) {
    checks.push(failedCheck('input hooks', error));
  } finally {
    await desktop.close();
  }
  return checks;
}

/** The model checks: configured (and from where), then reachable unless offline. */
export async function checkModel(options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  let config: Awaited<ReturnType<typeof resolveModelConfig>>;
  try {
    config = await resolveModelConfig({ env: options.env ?? process.env, configFile: options.config });
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
    detail: `${config.model} (${from('model')}) at ${config.baseURL} (${from('baseURL')}), ${key}, tools ${config.toolMode}`,
  };
  if (options.offline) {
    return [configured, { name: 'model endpoint', status: 'skip', detail: 'not checked (--offline)' }];
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

/** Runs every check; never throws for a failed check. */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const env = options.env ?? process.env;
  const display = await checkDisplay(env);
  const desktop: DoctorCheck[] =
    display.status === 'ok'
      ? await checkDesktop()
      : ['capture', 'input hooks'].map((name) => ({
          name,
          status: 'skip',
          detail: 'not checked: no display',
        }));
  return [checkNode(), display, ...desktop, ...(await checkModel({ ...options, env }))];
}
