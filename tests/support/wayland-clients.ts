/**
 * The processes connected to a Wayland compositor's socket, as the kernel tells them (`ss -xp`: the
 * compositor's end of each connection names the socket's path and its peer's inode; the peer's end
 * names the process holding it). Evidence, outside the compositor and the app, that an app is a
 * native Wayland client rather than an X11 one on Xwayland.
 */
import { execa } from 'execa';

export interface SocketClient {
  command: string;
  pid: number;
}

/** The processes (name and pid) holding a connection to the Unix socket at `socketPath`. */
export async function waylandClients(socketPath: string): Promise<SocketClient[]> {
  const { stdout } = await execa('ss', ['-xpH'], { timeout: 10_000 });
  const rows = stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[0] === 'u_str' && fields[1] === 'ESTAB');
  // Fields: netid, state, recv-q, send-q, local path (or *), local inode, peer (*), peer inode, users.
  const peers = new Set(rows.filter((f) => f[4] === socketPath).map((f) => f[7]));
  const clients: SocketClient[] = [];
  for (const fields of rows) {
    if (!peers.has(fields[5])) continue;
    for (const [, command = '', pid] of (fields[8] ?? '').matchAll(/\("([^"]*)",pid=(\d+)/g)) {
      clients.push({ command, pid: Number(pid) });
    }
  }
  return clients;
}
