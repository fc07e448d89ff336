/** Children a Wayland harness starts detached, each ended with its whole process group. */
import type { execa } from 'execa';
import { sleep } from './wait.ts';

/** A child started detached: how to signal its process group, and when it has exited. */
export interface Owned {
  kill: (signal: NodeJS.Signals) => void;
  done: Promise<unknown>;
}

/** A child started detached (`detached: true`), ended with its whole process group. */
export function groupOf(child: ReturnType<typeof execa>): Owned {
  return {
    kill: (signal) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    },
    done: child,
  };
}

/** SIGTERM to the group, then SIGKILL after 3 s; resolves once the child has exited. */
export async function end(child: Owned): Promise<void> {
  child.kill('SIGTERM');
  await Promise.race([child.done, sleep(3000).then(() => child.kill('SIGKILL'))]);
  await child.done;
}
