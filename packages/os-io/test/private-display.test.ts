/**
 * A private display's session bus on a real Xvfb. The services the bus starts (the accessibility bus
 * launcher with a bus daemon of its own, the registry, dconf) keep sockets and files in the bus
 * folder and end a moment after the bus: `stop()` ends every one of them before it removes the folder
 * (removing it while they still shut down raced their clean-up: Node 24's rmSync threw). A service of
 * the test's own takes half a second to end, and writes into the folder as it does. The server
 * reports 96 DPI, as a typical X desktop does (Xvfb's own default is 100: Qt and Tk drew bigger there).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import dbus from '@particle/dbus-next';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { openAccessibility, startPrivateDisplay } from '../src/index.ts';

/** Names of the processes whose environment has `XDG_RUNTIME_DIR=<folder>`. */
async function processesUsing(folder: string): Promise<string[]> {
  const names: string[] = [];
  for (const pid of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    try {
      const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
      if (environ.includes(`XDG_RUNTIME_DIR=${folder}`)) {
        names.push((await readFile(`/proc/${pid}/comm`, 'utf8')).trim());
      }
    } catch {
      // ended meanwhile
    }
  }
  return names;
}

/** A session service that ends half a second after SIGTERM, leaving a file in the folder. */
const LINGERING_SERVICE = `[D-BUS Service]
Name=org.mime.Lingering
Exec=/bin/sh -c 'trap "sleep 0.5; touch $XDG_RUNTIME_DIR/late; exit 0" TERM; while :; do sleep 0.1; done'
`;

/** Asks the bus at `address` to start a service by name (it never claims it: the call just starts it). */
async function startService(address: string, name: string): Promise<void> {
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on('error', () => undefined);
  try {
    const call = bus.call(
      new dbus.Message({
        destination: 'org.freedesktop.DBus',
        path: '/org/freedesktop/DBus',
        interface: 'org.freedesktop.DBus',
        member: 'StartServiceByName',
        signature: 'su',
        body: [name, 0],
      }),
    );
    call.catch(() => undefined); // answered with a timeout once the service never claims its name
  } finally {
    setTimeout(() => bus.disconnect(), 200);
  }
}

it('ends the services the bus started, then removes its folder', async () => {
  const display = await startPrivateDisplay();
  const folder = display.env.XDG_RUNTIME_DIR;
  const address = display.env.DBUS_SESSION_BUS_ADDRESS;
  if (!folder || !address) throw new Error('the private display has no session bus');
  const opened = await openAccessibility(display.env);
  if (!opened.ok) throw new Error(opened.reason);
  await writeFile(join(folder, 'dbus-1', 'services', 'org.mime.Lingering.service'), LINGERING_SERVICE);
  await startService(address, 'org.mime.Lingering');
  await expect.poll(() => processesUsing(folder), { timeout: 10_000 }).toContain('sh');
  expect(await processesUsing(folder)).toEqual(expect.arrayContaining(['at-spi-bus-laun', 'dbus-daemon']));
  expect((await readdir(folder, { recursive: true })).some((file) => file.startsWith('at-spi/bus'))).toBe(
    true,
  );

  await opened.accessibility.close();
  await display.stop();

  expect(await processesUsing(folder)).toEqual([]);
  expect(existsSync(folder)).toBe(false);
});

it("reports 96 DPI, not Xvfb's default 100, so Qt and Tk draw text as on a 96-DPI desktop and on Wayland", async () => {
  const display = await startPrivateDisplay({ accessibility: false });
  try {
    const { stdout } = await execa('xdpyinfo', { env: display.env });
    expect(stdout).toMatch(/^\s*dimensions:\s+1280x800 pixels/m);
    expect(stdout).toMatch(/^\s*resolution:\s+96x96 dots per inch$/m);
  } finally {
    await display.stop();
  }
});
