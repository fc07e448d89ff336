/** `mime record` in a terminal: its pause prompt, and what it leaves out of its own terminal. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { centerOf, DEMO_LAYOUT } from '@mime-desktop/test-support/desktop-harness';
import { tempDir, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { manifestOf, recorded } from '@mime-desktop/test-support/recording';
import { MIME_BIN } from '@mime-desktop/test-support/run-mime';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();

let home: string;

beforeAll(async () => {
  home = await fileTempDir('mime-record-');
}, 60_000);

beforeEach(async () => {
  await desktop().resetApp();
});

describe('mime record in a terminal', () => {
  it('pauses on Ctrl+I (on the display or in its own terminal) and takes one-key answers at the prompt', async () => {
    const socket = `mime-test-${process.pid}`;
    const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
    const pane = async () => (await tmux('capture-pane', '-p', '-t', 'rec')).stdout;
    const waitForPane = async (pattern: RegExp) => {
      for (let i = 0; i < 200; i += 1) {
        const text = await pane();
        if (pattern.test(text)) return text;
        await sleep(50);
      }
      throw new Error(`the terminal never showed ${pattern}:\n${await pane()}`);
    };
    const command = `env DISPLAY=${desktop().display} NO_COLOR=1 ${process.execPath} ${MIME_BIN} record --name annotated --home ${home}`;
    await tmux(
      'new-session',
      '-d',
      '-s',
      'rec',
      '-x',
      '160',
      '-y',
      '48',
      `${command}; echo "exit=$?"; sleep 60`,
    );
    try {
      const started = await waitForPane(/● Recording "annotated" into (\S+)/);
      const dir = /● Recording "annotated" into (\S+)/.exec(started)?.[1] as string;
      const pad = centerOf(DEMO_LAYOUT.clickPad);
      await desktop().click(pad.x - 100, pad.y);
      await waitForPane(recorded(0));
      await desktop().pressKeys('ctrl+i');
      await waitForPane(/Annotate: \(e\)xtract/);
      await desktop().click(pad.x, pad.y); // ignored: capture is paused
      await tmux('send-keys', '-t', 'rec', 'e'); // one key, no Enter
      await waitForPane(/What to extract from this screen:$/m);
      await tmux('send-keys', '-t', 'rec', 'the last action', 'Enter');
      await waitForPane(/Example values/);
      await tmux('send-keys', '-t', 'rec', 'pad:left, none', 'Enter');
      await waitForPane(/Recording resumed\./);
      // Ctrl+I in the recorder's own terminal, which is not on the recorded display.
      await tmux('send-keys', '-t', 'rec', 'C-i');
      await waitForPane(/Annotate:[^\n]*\n(?:.*\n)*.*Annotate: /);
      await tmux('send-keys', '-t', 'rec', 'd');
      await waitForPane(/Note for the next step:$/m);
      await tmux('send-keys', '-t', 'rec', 'click the right half', 'Enter');
      await waitForPane(/Recording resumed\.[\s\S]*Recording resumed\./);
      await desktop().click(pad.x + 100, pad.y);
      await waitForPane(recorded(2));
      await tmux('send-keys', '-t', 'rec', 'C-c'); // Ctrl+C in its terminal stops it (raw mode)
      await waitForPane(/events in [\d.]+ s saved[\s\S]*exit=0/);
      const events = await manifestOf(dir);
      expect(events.map((e) => [e.action_type, e.action_details, e.details])).toEqual([
        ['click', { button: 'left', x: pad.x - 100, y: pad.y }, null],
        ['extract', { query: 'the last action', values: ['pad:left', 'none'] }, null],
        ['click', { button: 'left', x: pad.x + 100, y: pad.y }, 'click the right half'],
        [null, {}, null],
      ]);
    } finally {
      await tmux('kill-server').catch(() => undefined);
    }
  });
});

describe('mime record run from a terminal window', () => {
  const wmDesktop = useDesktop({ windowManager: true });

  it('leaves out what is typed or clicked in its own terminal', async () => {
    const termHome = await tempDir('mime-record-term-');
    const command = `env NO_COLOR=1 ${process.execPath} ${MIME_BIN} record --name term --home ${termHome}; sleep 30`;
    const xterm = execa(
      'xterm',
      ['-geometry', '60x8+700+600', '-title', 'mime-terminal', '-e', 'sh', '-c', command],
      {
        env: wmDesktop().env,
        reject: false,
      },
    );
    try {
      const dir = await waitUntil(
        async () => {
          const [session] = await readdir(join(termHome, 'recordings')).catch(() => [] as string[]);
          if (!session) return undefined;
          const log = await readFile(join(termHome, 'recordings', session, 'record.log'), 'utf8').catch(
            () => '',
          );
          return log.includes('"started"') ? join(termHome, 'recordings', session) : undefined;
        },
        { timeoutMs: 20_000, what: 'the recorder in the terminal starting' },
      );
      /** Waits until the recorder's log matches `pattern`. */
      const logged = (pattern: RegExp) =>
        waitUntil(async () => pattern.test(await readFile(join(dir, 'record.log'), 'utf8')), {
          what: `record.log matching ${pattern}`,
        });
      // Keys went to the window focused as the recorder sees them: a person's pause lets it see
      // them before the focus moves (nothing tells when the recorder has, until the burst ends).
      await wmDesktop().typeText('hello');
      await sleep(300);
      const search = centerOf(DEMO_LAYOUT.search);
      await wmDesktop().click(search.x, search.y);
      await logged(/"index":0/);
      await wmDesktop().typeText('Numb');
      await sleep(300);
      const terminal = (await wmDesktop().xdotool('search', '--name', 'mime-terminal')).split(
        '\n',
      )[0] as string;
      await wmDesktop().xdotool('windowactivate', '--sync', terminal);
      await wmDesktop().click(760, 630);
      await logged(/"index":1/);
      await wmDesktop().typeText('junk');
      await wmDesktop().pressKeys('ctrl+alt+shift+s');
      await waitUntil(
        async () => (await readFile(join(dir, 'manifest.jsonl'), 'utf8')).includes('"action_type":null'),
        { what: 'the end of the manifest' },
      );
      const events = await manifestOf(dir);
      expect(events.map((e) => [e.action_type, e.action_details])).toEqual([
        ['click', expect.objectContaining({ x: search.x, y: search.y })],
        ['type', { text: 'Numb', secret: false }],
        [null, {}],
      ]);
      expect((await wmDesktop().readAppState()).search).toBe('Numb');
    } finally {
      xterm.kill('SIGKILL');
    }
  });
});
