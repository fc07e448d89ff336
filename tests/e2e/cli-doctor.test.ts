import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel, type FakeVisionDialect } from '@mime-desktop/test-support/fake-vision-model';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const NO_DISPLAY = { DISPLAY: '', WAYLAND_DISPLAY: '' };

describe('mime doctor', () => {
  it('fails without a display or a model, saying how to fix each (exit 1)', async () => {
    const result = await runMime(['doctor'], { env: NO_DISPLAY });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^✓ node: Node \d+\.\d+\.\d+$/m);
    expect(result.stderr).toContain('✗ display: DISPLAY is not set');
    expect(result.stderr).toContain('xvfb-run -a');
    expect(result.stderr).toMatch(/! model config: .*set MIME_BASE_URL/);
    expect(result.stderr).toContain('trace and auto replay and mime reflect (from the recording alone) work');
    expect(result.stderr).toContain('- model endpoint: not checked: no model configured');
  });

  it('reaches a configured endpoint through the SDK, and never prints the key', async () => {
    const server = await startFakeModelServer({ apiKey: 'sk-test-doctor-123', models: ['vision-1'] });
    try {
      const env = {
        ...NO_DISPLAY,
        MIME_BASE_URL: server.url,
        MIME_MODEL: 'vision-1',
        MIME_API_KEY: 'sk-test-doctor-123',
      };
      const result = await runMime(['doctor', '--json'], { env });
      const report = JSON.parse(result.stdout);
      expect(report.checks.find((c: { name: string }) => c.name === 'model endpoint')).toMatchObject({
        status: 'ok',
        detail: expect.stringMatching(/^answered in \d+ ms; lists vision-1$/),
      });
      expect(report.checks.find((c: { name: string }) => c.name === 'model config').detail).toContain(
        'vision-1 (env MIME_MODEL)',
      );
      expect(result.exitCode).toBe(1); // the display check fails here
      expect(server.requests.some((r) => r.path === '/v1/models')).toBe(true);

      const wrongKey = await runMime(['doctor'], { env: { ...env, MIME_API_KEY: 'sk-wrong-key-456' } });
      expect(wrongKey.stderr).toMatch(/✗ model endpoint: .*\[MIME_MODEL_AUTH\]/);
      expect(wrongKey.stderr + wrongKey.stdout).not.toContain('sk-wrong-key-456');
    } finally {
      await server.close();
    }
  });

  it('skips the network with --offline and reports an unreachable endpoint', async () => {
    const env = { ...NO_DISPLAY, MIME_BASE_URL: 'http://127.0.0.1:9/v1', MIME_MODEL: 'm' };
    const offline = await runMime(['doctor', '--offline'], { env });
    expect(offline.stderr).toContain('- model endpoint: not checked (offline)');
    const online = await runMime(['doctor'], { env });
    expect(online.stderr).toMatch(
      /✗ model endpoint: Cannot reach the model server at http:\/\/127\.0\.0\.1:9\/v1.*\[MIME_MODEL_UNREACHABLE\]/,
    );
  });
});

describe('mime doctor --model', () => {
  const probe = async (dialect: FakeVisionDialect, env: Record<string, string> = {}) => {
    const server = await startFakeModelServer({ models: ['vision-1'] });
    const model = createFakeVisionModel({ dialect });
    server.setHandler(model.handler);
    try {
      const result = await runMime(['doctor', '--model', '--json'], {
        env: { ...NO_DISPLAY, MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1', ...env },
      });
      const checks = JSON.parse(result.stdout).checks as Array<{
        name: string;
        status: string;
        detail: string;
        fix?: string;
      }>;
      const named = (name: string) => checks.find((c) => c.name === name);
      return {
        calls: named('model tool calls'),
        coordinates: named('model coordinates'),
        images: model.turns.map((t) => t.image),
      };
    } finally {
      await model.close();
      await server.close();
    }
  };

  it('asks for one click on a real screenshot: native calls, grid coordinates, the turn time', async () => {
    const { calls, coordinates, images } = await probe('mime');
    expect(images).toEqual([{ width: 1280, height: 800, bytes: expect.any(Number) }]);
    expect(calls).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^native tool calls work, one turn took \d+ ms$/),
    });
    expect(coordinates).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/: on "Drag me" in grid1000, the convention set$/),
    });
  });

  it('tells a pixel model to set MIME_COORDINATES=pixels, and a server that leaves calls in the text', async () => {
    const pixels = await probe('pixels');
    expect(pixels.coordinates).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(
        /^it clicked \[\d+, \d+\]: on "Drag me" only read as pixels, but grid1000 is set$/,
      ),
      fix: 'set MIME_COORDINATES=pixels (or --coordinates pixels)',
    });
    expect((await probe('pixels', { MIME_COORDINATES: 'pixels' })).coordinates?.status).toBe('ok');
    const content = await probe('qwen-content');
    expect(content.calls?.detail).toMatch(/^the server left the call in the message text/);
  });
});
