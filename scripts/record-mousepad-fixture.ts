/**
 * Re-makes fixtures/recordings/mousepad-save and fixtures/workflows/mousepad-save: a real
 * `mime record --launch mousepad` under Xvfb with openbox (write a note, Ctrl+S, type a file path in
 * GTK's Save dialog, Enter), then reflected with the fake reflect model (params `note` and
 * `file_path`). Run with `pnpm fixtures:mousepad` after changing the recording format.
 */
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveModelConfig } from '@mime-desktop/model';
import { reflect } from '@mime-desktop/reflect';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { REPO_ROOT, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';

const NOTE = 'Hello from mime';
const desktop = await startDesktopHarness({ app: false, windowManager: true, keepDisplayUntilExit: false });
const home = await mkdtemp(join(tmpdir(), 'mime-fixture-'));
const saveDir = '/tmp/mime-notes';
await rm(saveDir, { recursive: true, force: true });
await mkdir(saveDir, { recursive: true });
const server = await startFakeModelServer();
try {
  const env = await gtkAppEnv(desktop);
  const recorder = startMime(
    [
      'record',
      '--name',
      'save a note',
      '--description',
      'Write a note in Mousepad and save it to a file.',
      '--home',
      home,
      '--launch',
      'mousepad',
    ],
    { env },
  );
  const sessionId = await recorder.waitForStdoutLine(30_000);
  await recorder.waitForStderr(/● Recording/, 30_000);
  const window = await waitForWindowTitle(desktop, 'Mousepad');
  await sleep(1500);
  const box = await windowGeometry(desktop, window);
  await desktop.click(box.x + Math.round(box.width / 2), box.y + Math.round(box.height / 2));
  await sleep(500);
  await desktop.typeText(NOTE);
  await sleep(800);
  await desktop.pressKeys('ctrl+s');
  await waitForWindowTitle(desktop, 'Save As');
  await sleep(1200);
  await desktop.typeText(`${saveDir}/note.txt`);
  await sleep(800);
  await desktop.pressKeys('Return');
  await waitForWindowTitle(desktop, 'note.txt');
  await sleep(1500);
  if ((await readFile(`${saveDir}/note.txt`, 'utf8')).trim() !== NOTE)
    throw new Error('the note was not saved');
  await startMime(['record', 'stop', '--session', sessionId], { env }).done;
  const result = await recorder.done;
  if (result.exitCode !== 0) throw new Error(result.stderr);
  const recording = join(REPO_ROOT, 'fixtures', 'recordings', 'mousepad-save');
  await rm(recording, { recursive: true, force: true });
  await cp(join(home, 'recordings', sessionId), recording, { recursive: true });
  await rm(join(recording, 'record.log'), { force: true });

  server.setHandler(
    reflectModel({
      plan: {
        params: ['note', 'file_path'],
        subtasks: [
          'Write {note} in the Mousepad document. Expected outcome: the document shows {note}.',
          'Save the document as {file_path}. Expected outcome: the window title names the saved file.',
        ],
        description: 'Write a note in Mousepad and save it to a file.',
        success: 'The note is saved in the file.',
      },
    }),
  );
  const session = join(home, 'recordings', 'mousepad-save');
  await cp(recording, session, { recursive: true });
  const model = await resolveModelConfig({ env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake-model' } });
  const reflected = await reflect(session, { model });
  const workflow = join(REPO_ROOT, 'fixtures', 'workflows', 'mousepad-save');
  await rm(workflow, { recursive: true, force: true });
  await cp(reflected.workflowDir, workflow, { recursive: true });
  await rm(join(workflow, 'reflect.log'), { force: true });
  process.stderr.write(`wrote ${recording} and ${workflow}\n`);
} finally {
  await server.close();
  await desktop.stop();
  await rm(home, { recursive: true, force: true });
}
