/**
 * Tells one process from a later one given the same pid: on Linux, the boot's id and the process's
 * start time in clock ticks since boot (`/proc/<pid>/stat`, field 22). Elsewhere there is no cheap
 * way to read it: null, and a pid that answers is trusted.
 */
import { readFileSync } from 'node:fs';

let bootId: string | null | undefined;

function readBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * The start identity of process `pid` (`<boot id>:<start ticks>`), or null where it cannot be read:
 * not Linux, no such process, or one that has ended and awaits its parent (a zombie holds nothing).
 */
export function processStartIdentity(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [state] = fields;
  const startTicks = fields[19];
  if (state === 'Z' || state === 'X' || startTicks === undefined) return null;
  return `${readBootId() ?? 'boot'}:${startTicks}`;
}

/**
 * Whether process `pid` of this machine is the one whose start identity was recorded as `started`:
 * alive, and not a later process given the same pid. With no identity recorded (not Linux), a pid
 * that answers a signal 0 is trusted.
 */
export function processIsRunning(pid: number, started: string | null): boolean {
  if (started !== null) return processStartIdentity(pid) === started;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid is alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
