/**
 * The rig of an e2e file that replays with a model: a private desktop (the e2e rig's useDesktop) and
 * the fake model server, started once for the file; after each test the server's handler is removed
 * and the test's fake model closed; after the file both are stopped and the temp folders removed.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { DesktopHarness, DesktopHarnessOptions } from './desktop-harness.ts';
import { useDesktop, useTempDirs } from './e2e-rig.ts';
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
  const desktop = useDesktop(options);
  let server: FakeModelServer | undefined;
  let model: FakeVisionModel | undefined;
  const tempDir = useTempDirs();
  const started = (): FakeModelServer => {
    if (!server) throw new Error("the rig's model server is not started (use it inside a test)");
    return server;
  };

  beforeAll(async () => {
    server = await startFakeModelServer();
  });

  afterEach(async () => {
    server?.setHandler(undefined);
    await model?.close();
    model = undefined;
  });

  afterAll(async () => {
    await server?.close();
  });

  return {
    get desktop() {
      return desktop();
    },
    get server() {
      return started();
    },
    useModel(modelOptions = {}) {
      model = createFakeVisionModel(modelOptions);
      started().setHandler(model.handler);
      return model;
    },
    env() {
      return { ...desktop().env, MIME_BASE_URL: started().url, MIME_MODEL: 'fake-vision' };
    },
    tempDir,
  };
}
