import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';

/**
 * A JSON log per run (pino), beside the run's other files: `mime.log` in a replay run folder,
 * `reflect.log` in a workflow, `record.log` in a recording. Each line is written synchronously, so a
 * killed process leaves whole lines. Events logged here are the library's typed events, which carry
 * sensitive values only as `{name}`. The log never stands in the way of the command: it is not
 * written through a symbolic link (a shared workflow's `reflect.log` that links out), and once a
 * line cannot be written (a full or read-only disk) logging stops, so the command's own error is the
 * one reported.
 */
export interface RunLog {
  /** Starts writing to `<dir>/<file>`; what was logged before is written first. */
  attach(dir: string): void;
  event(event: { type: string }): void;
  error(error: unknown): void;
}

export function createRunLog(command: string, file: string): RunLog {
  let logger: pino.Logger | undefined;
  let off = false;
  const pending: Array<(log: pino.Logger) => void> = [];
  const write = (entry: (log: pino.Logger) => void) => {
    if (off) return;
    if (!logger) {
      pending.push(entry);
      return;
    }
    try {
      entry(logger);
    } catch {
      off = true;
    }
  };
  return {
    attach(dir) {
      if (logger || off) return;
      const path = join(dir, file);
      try {
        if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
          off = true;
          return;
        }
        const destination = pino.destination({ dest: path, sync: true, mkdir: true, mode: 0o600 });
        logger = pino({ base: { command }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
      } catch {
        off = true;
        return;
      }
      for (const entry of pending.splice(0)) write(entry);
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
