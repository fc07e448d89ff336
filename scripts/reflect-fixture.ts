/**
 * Re-makes fixtures/workflows/play-song-recorded: fixtures/recordings/play-song reflected (with the
 * fake reflect model standing in for the vision model), so it carries the recorded sources that
 * trace and auto replay act from. Run with `pnpm fixtures:reflect` after `pnpm fixtures:record`.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveModelConfig } from '@mime-desktop/model';
import { reflect } from '@mime-desktop/reflect';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';

const server = await startFakeModelServer();
server.setHandler(reflectModel());
const home = await mkdtemp(join(tmpdir(), 'mime-fixture-'));
try {
  const session = join(home, 'recordings', 'play-song-recorded');
  await cp(join(REPO_ROOT, 'fixtures', 'recordings', 'play-song'), session, { recursive: true });
  const model = await resolveModelConfig({ env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake-model' } });
  const result = await reflect(session, { model });
  const target = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');
  await rm(target, { recursive: true, force: true });
  await cp(result.workflowDir, target, { recursive: true });
  process.stderr.write(`wrote ${target}\n`);
} finally {
  await server.close();
  await rm(home, { recursive: true, force: true });
}
