/**
 * The vision process's entry (started by vision-process.ts with an IPC channel): answers OCR and
 * template-matching calls with this package's own in-process code, and exits when its host
 * disconnects: on the host's `close()`, its idle timer, or its death (even by SIGKILL).
 */
import { findTemplate } from './find.ts';
import { OcrEngine } from './ocr.ts';
import { errorToWire, type VisionCall, type VisionMethods, type VisionReply } from './vision-wire.ts';

const ocr = new OcrEngine();
// PNG bytes arrive as a Buffer or a plain Uint8Array (V8 serialization): tesseract.js wants a Buffer, made without a copy.
const methods: VisionMethods = {
  readWords: (png, options) =>
    ocr.readWords(Buffer.from(png.buffer, png.byteOffset, png.byteLength), options),
  readLine: (png) => ocr.readLine(Buffer.from(png.buffer, png.byteOffset, png.byteLength)),
  start: () => ocr.start(),
  findTemplate: (screen, template, options) => findTemplate(screen, template, options),
};

/** Answers the host, unless it is gone (this process then exits). */
function reply(message: VisionReply): void {
  if (process.connected) process.send?.(message);
}

process.on('message', (call: VisionCall) => {
  const run = methods[call.method] as (...args: unknown[]) => Promise<unknown>;
  Promise.resolve(call.args)
    .then((args) => run(...args))
    .then(
      (value) => reply({ id: call.id, ok: true, value }),
      (error: unknown) => reply({ id: call.id, ok: false, failure: errorToWire(error) }),
    );
});
// The tesseract worker thread would keep this process alive after its host is gone.
process.once('disconnect', () => process.exit(0));
