/**
 * A model server that misbehaves after its headers: a 3 GB body and an endless trickle. The request
 * ends within the timeout with an error that says which, and mime's memory stays small.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MIME_BIN } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let server: Server;
let url: string;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20);

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes('/huge/')) {
      // 3 GB announced, sent as fast as it is read.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 ** 3) });
      const pump = () => {
        while (res.write(CHUNK)) {}
      };
      res.on('drain', pump);
      res.write('{"data": [');
      pump();
      return;
    }
    // A byte now and then, never the end.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data": [');
    const timer = setInterval(() => res.write(' '), 100);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** `mime doctor` against the server (it lists the models), its wall time and peak memory. */
async function doctor(path: string) {
  const started = performance.now();
  const result = await execa(
    '/usr/bin/time',
    ['-f', 'maxrss_kb=%M', process.execPath, MIME_BIN, 'doctor', '--json'],
    {
      reject: false,
      env: {
        NO_COLOR: '1',
        DISPLAY: '',
        MIME_BASE_URL: `${url}${path}`,
        MIME_MODEL: 'any',
        MIME_MODEL_TIMEOUT_MS: '3000',
        MIME_MODEL_MAX_RETRIES: '0',
      },
    },
  );
  const rss = Number(/maxrss_kb=(\d+)/.exec(result.stderr)?.[1]);
  const endpoint = JSON.parse(result.stdout).checks.find(
    (c: { name: string }) => c.name === 'model endpoint',
  );
  return { endpoint, ms: performance.now() - started, rssMb: rss / 1024 };
}

describe('a model server that misbehaves after its headers', () => {
  it('a 3 GB body is cut at 32 MiB: an error that says so, and memory under 300 MB', async () => {
    const { endpoint, ms, rssMb } = await doctor('/huge/v1');
    expect(endpoint).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('sent a reply larger than 33554432 bytes'),
    });
    expect(ms).toBeLessThan(15_000);
    expect(rssMb).toBeLessThan(300);
  });

  it('an endless trickle ends at the request deadline with MIME_MODEL_TIMEOUT', async () => {
    const { endpoint, ms, rssMb } = await doctor('/slow/v1');
    expect(endpoint).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('did not answer within 3000 ms'),
    });
    expect(ms).toBeLessThan(15_000);
    expect(rssMb).toBeLessThan(300);
  });
});
