import { join } from 'node:path';
import { pino } from 'pino';

/**
 * A JSON log per run (pino), beside the run's other files: `mime.log` in a replay run folder,
 * `reflect.log` in a workflow, `record.log` in a recording. Each line is written synchronously, so a
 * killed process leaves whole lines. Events logged here are the library's typed events, which carry
 * sensitive values only as `{name}`.
 */
export interface RunLog {
  /** Starts writing to `<dir>/<file>`; what was logged before is written first. */
  attach(dir: string): void;
  event(event: { type: string }): void;
  error(error: unknown): void;
}

export function createRunLog(command: string, file: string): RunLog {
  let logger: pino.Logger | undefined;
  const pending: Array<(log: pino.Logger) => void> = [];
  const write = (entry: (log: pino.Logger) => void) => {
    if (logger) entry(logger);
    else pending.push(entry);
  };
  return {
    attach(dir) {
      if (logger) return;
      const destination = pino.destination({ dest: join(dir, file), sync: true, mkdir: true, mode: 0o600 });
      logger = pino({ base: { command }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
      for (const entry of pending.splice(0)) entry(logger);
    },
    event(event) {
      write((log) => log.info({ event }, event.type));
    },
    error(error) {
      const err =
        error instanceof Error
          ? { name: error.name, message: error.message, code: (error as { code?: unknown }).code }
          : { message: String(error) };
      write((log) => log.error({ err }, 'failed'));
    },
  };
}
