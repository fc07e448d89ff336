/**
 * Types through mime's wlroots desktop on cue, for the XWayland typing test in
 * tests/e2e/replay-wayland-apps.test.ts: opens the desktop of its environment, clicks at the point
 * given as `x,y`, says `ready`; on a line `go` types the text given, says `typed`; ends when its
 * input closes.
 */
import { createInterface } from 'node:readline';
import { createWlrootsDesktop } from '../../packages/os-io/src/wlroots-desktop.ts';

const [at = '', text = ''] = process.argv.slice(2);
const [x = 0, y = 0] = at.split(',').map(Number);
const desktop = await createWlrootsDesktop({ failSafe: false }, process.env);
try {
  await desktop.click({ x, y });
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line !== 'go') continue;
    await desktop.typeText(text);
    process.stdout.write('typed\n');
  }
} finally {
  await desktop.close();
}
