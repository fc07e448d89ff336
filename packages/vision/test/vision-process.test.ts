import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MimeError } from '@mime-desktop/schema';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { afterAll, describe, expect, it } from 'vitest';
import {
  crop,
  decodeImage,
  findTemplate,
  OcrEngine,
  useVisionProcess,
  type VisionProcess,
  VisionProcessError,
} from '../src/index.ts';
import { errorFromWire, errorToWire } from '../src/vision-wire.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures');
const SHOT = join(FIXTURES, 'recordings', 'play-song', 'screenshots', '3.png');
const PROBE = join(import.meta.dirname, '..', '..', 'replay', 'assets', 'probe-demo-app.png');
const playButton = { x: 512, y: 174, width: 100, height: 40 };

/** Whether a process runs (one that ended and waits to be reaped, a zombie, does not). */
async function running(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  return status !== null && !/^State:\s+Z/m.test(status);
}

const ended = (pid: number, what: string) =>
  waitUntil(async () => !(await running(pid)), { timeoutMs: 20_000, what });

let vision: VisionProcess | undefined;
afterAll(async () => {
  await vision?.close();
});

describe('the vision process', () => {
  it('finds and reads as this process would, and exits once idle', async () => {
    const screen = await decodeImage(SHOT);
    const template = crop(screen, playButton);
    const png = await readFile(PROBE);
    const near = { x: 400, y: 100, width: 400, height: 200 };
    const here = new OcrEngine();
    const [match, nearMatch, words] = [
      await findTemplate(screen, template),
      await findTemplate(screen, template, { within: near }),
      await here.readWords(png),
    ];
    expect(nearMatch?.box).toEqual(playButton);
    await here.close();

    vision = useVisionProcess({ idleMs: 300 });
    const engine = new OcrEngine();
    expect(engine.started).toBe(false);
    const [remoteMatch, remoteWords] = await Promise.all([
      findTemplate(screen, template),
      engine.readWords(png),
    ]);
    expect(remoteMatch).toEqual(match);
    // Only the area searched crosses: the same match, in the screen's pixels.
    expect(await findTemplate(screen, template, { within: near })).toEqual(nearMatch);
    expect(remoteWords).toEqual(words);
    expect(await engine.readLine(png)).toBe(await engine.readLine(png));
    const pid = vision.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(engine.started).toBe(true);

    await ended(pid, 'the idle vision process to exit');
    expect(vision.pid).toBeUndefined();
    expect(engine.started).toBe(false);
    // The next call starts a new one.
    expect(await findTemplate(screen, template)).toEqual(match);
    expect(vision.pid).not.toBe(pid);
    await vision.close();
    expect(vision.pid).toBeUndefined();
  }, 90_000);

  it('rejects the calls in flight when it dies, and starts anew at the next', async () => {
    vision = useVisionProcess({ idleMs: 60_000 });
    const image = { width: 16, height: 16, data: new Uint8Array(16 * 16 * 4) };
    // tesseract.js throws an uncaught error on bytes that are no image: here it takes only the child down.
    const read = new OcrEngine().readWords(Buffer.from('not an image'));
    const pid = vision.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    await expect(read).rejects.toBeInstanceOf(VisionProcessError);
    await expect(read).rejects.toMatchObject({ code: 'MIME_VISION_PROCESS' });
    await ended(pid, 'the crashed vision process to be gone');
    expect(await findTemplate(image, image)).not.toBeNull();
    expect(vision.pid).not.toBe(pid);
    await vision.close();
  }, 90_000);

  it('dies with its host, even one killed by SIGKILL', async () => {
    const host = spawn(
      process.execPath,
      ['--import', import.meta.resolve('tsx/esm'), join(import.meta.dirname, 'fixtures', 'vision-host.ts')],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    host.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
    });
    const child = Number(
      await waitUntil(() => /^\d+\n/.exec(out)?.[0], { timeoutMs: 60_000, what: "the host's vision pid" }),
    );
    expect(await running(child)).toBe(true);
    host.kill('SIGKILL');
    await ended(child, 'the vision process of a killed host to exit');
  }, 90_000);
});

describe('errors from the vision process', () => {
  const across = (error: unknown) => errorFromWire(errorToWire(error));

  it('are thrown as the same class, message and code', () => {
    const range = across(new RangeError('images differ in size'));
    expect(range).toBeInstanceOf(RangeError);
    expect(range).toMatchObject({ message: 'images differ in size' });
    const mime = across(new MimeError('MIME_SOMETHING', 'what is wrong', { exit: 'usage' }));
    expect(mime).toBeInstanceOf(MimeError);
    expect(mime).toMatchObject({ code: 'MIME_SOMETHING', exit: 'usage', message: 'what is wrong' });
    expect(across(new VisionProcessError('gone'))).toBeInstanceOf(VisionProcessError);
    const coded = across(Object.assign(new Error('no file'), { code: 'ENOENT' }));
    expect(coded).toMatchObject({ code: 'ENOENT', message: 'no file' });
  });

  it('keep a thrown value that is no Error as it was (OpenCV throws numbers)', () => {
    expect(across(7077488)).toBe(7077488);
    expect(across('a string')).toBe('a string');
  });
});
