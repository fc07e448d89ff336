/**
 * The rig of an e2e file that replays with a model: a private desktop (Xvfb and the demo app) and
 * the fake model server, started once for the file; after each test the server's handler is removed
 * and the test's fake model closed; after the file both are stopped and the temp folders removed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type DesktopHarness, type DesktopHarnessOptions, startDesktopHarness } from './desktop-harness.ts';
import { type FakeModelServer, startFakeModelServer } from './fake-model-server.ts';
import {
  createFakeVisionModel,
  type FakeVisionModel,
  type FakeVisionModelOptions,
} from './fake-vision-model.ts';

export interface ModelRig {
  readonly desktop: DesktopHarness;
  readonly server: FakeModelServer;
  /** Answers the server's chat requests with a new fake vision model, closed after the test. */
  useModel(options?: FakeVisionModelOptions): FakeVisionModel;
  /** `desktop.env` pointing mime at the fake model. */
  env(): NodeJS.ProcessEnv;
  /** A new temp folder, removed after the file's tests. */
  tempDir(prefix: string): Promise<string>;
}

export function useModelRig(options: DesktopHarnessOptions = {}): ModelRig {
  let desktop: DesktopHarness | undefined;
  let server: FakeModelServer | undefined;
  let model: FakeVisionModel | undefined;
  const tempDirs: string[] = [];
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`the rig's ${name} is not started (use it inside a test)`);
    return value;
  };

  beforeAll(async () => {
    [desktop, server] = await Promise.all([
      startDesktopHarness({ keepDisplayUntilExit: false, ...options }),
      startFakeModelServer(),
    ]);
  }, 60_000);

  afterEach(async () => {
    server?.setHandler(undefined);
    await model?.close();
    model = undefined;
  });

  afterAll(async () => {
    await Promise.all([desktop?.stop(), server?.close()]);
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  return {
    get desktop() {
      return started(desktop, 'desktop');
    },
    get server() {
      return started(server, 'model server');
    },
    useModel(modelOptions = {}) {
      model = createFakeVisionModel(modelOptions);
      started(server, 'model server').setHandler(model.handler);
      return model;
    },
    env() {
      const { url } = started(server, 'model server');
      return { ...started(desktop, 'desktop').env, MIME_BASE_URL: url, MIME_MODEL: 'fake-vision' };
    },
    async tempDir(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      tempDirs.push(dir);
      return dir;
    },
  };
}
