import { execa } from 'execa';
import { startSwayHarness } from './sway-harness.ts';
import { createWlrootsDesktop } from '../../packages/os-io/src/wlroots-desktop.ts';
import { sleep } from './wait.ts';
const h = await startSwayHarness({ xwayland: true, chromium: 'x11' });
try {
  const d = await createWlrootsDesktop({ failSafe: false }, h.env as any);
  console.log('focused', await d.focusedWindow());
  for (const [warm, text, pre] of [[30, 'Faint', 1], [30, 'AbC', 1], [30, 'Ça va', 1], [30, 'Faint', 0]] as const) {
    await d.click({ x: 240, y: 120 });
    await d.pressKey('ctrl+a');
    await d.pressKey('backspace');
    const t0 = Date.now();
    await execa('wtype', ['-s', String(warm), ...(pre ? ['-k', 'Shift_L'] : []), text, '-s', '50'], { env: h.env as any, extendEnv: false });
    await sleep(500);
    const s = await h.readAppState();
    console.log(warm, pre, JSON.stringify(s.search), JSON.stringify(s.typed), Date.now() - t0);
  }
  await d.close();
} finally { await h.stop(); }
