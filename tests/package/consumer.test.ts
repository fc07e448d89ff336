/**
 * mime as its users get it: every package built and packed (`pnpm pack`, as published), installed with
 * npm into a project outside the workspace, and globally into a prefix. Nothing of the workspace is
 * visible to the installed code: it runs on plain `node`, from the tarballs alone.
 */
import { mkdir, mkdtemp, readFile, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DesktopHarness, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import {
  CLEAN_ENV,
  installGlobally,
  installInProject,
  PUBLISHED_PACKAGES,
  packMime,
} from '@mime-desktop/test-support/packed-mime';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'packages', 'cli', 'package.json'), 'utf8'));
const DEMO_WORKFLOW = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const PACKAGES = PUBLISHED_PACKAGES;

const tsBlocks = (markdown: string) => [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

/** The ```ts code blocks of the README's "Use as a library" section, in order. */
async function readmeExamples(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use as a library'));
  return tsBlocks(section.slice(0, section.indexOf('\n## ', 4)));
}

/** The TypeScript examples of each package's README, by package. */
async function packageReadmeExamples(): Promise<string[][]> {
  const readmes = await Promise.all(
    PACKAGES.map((name) => readFile(join(REPO_ROOT, 'packages', name, 'README.md'), 'utf8')),
  );
  return readmes.map(tsBlocks);
}

let root: string;
let tarballs: string[];
let project: string;
let globalMime: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mime-consumer-'));
  tarballs = await packMime(join(root, 'packs'));
  project = join(root, 'project');
  await installInProject(project, tarballs, ['@types/node@20']);
  globalMime = await installGlobally(join(root, 'global'), tarballs);
}, 600_000);

describe('the packed packages', () => {
  it('are publishable: versions resolved, built entry points with types, licence, engines', async () => {
    expect(tarballs.map((t) => t.split('/').at(-1)).sort()).toEqual(
      PACKAGES.map((name) => `mime-desktop-${name}-${version}.tgz`),
    );
    for (const name of ['cli', 'schema', 'replay']) {
      const dir = join(project, 'node_modules', '@mime-desktop', name);
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      expect(JSON.stringify(manifest)).not.toContain('workspace:');
      expect(JSON.stringify(manifest)).not.toContain('src/');
      expect(manifest).toMatchObject({
        license: 'MIT',
        engines: { node: '>=20.19' },
        exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      });
      expect(await readFile(join(dir, 'LICENSE'), 'utf8')).toContain('MIT License');
      expect(await readFile(join(dir, 'README.md'), 'utf8')).toMatch(
        new RegExp(`^# @mime-desktop/${name}\n`),
      );
      // Source and declaration maps point at the sources published beside them.
      for (const map of ['index.js.map', 'index.d.ts.map']) {
        const { sources } = JSON.parse(await readFile(join(dir, 'dist', map), 'utf8'));
        expect(sources).toEqual(['../src/index.ts']);
        expect(await readFile(join(dir, 'src', 'index.ts'), 'utf8')).toContain('export');
      }
    }
  });

  // 26 processes, each loading its linter (attw: TypeScript, ~15 s of CPU in all): a minute was not
  // enough beside the other Node lines and a busy core (CI 14a).
  it('pass publint (strict) and are the types wrong? (esm-only profile), each tarball', {
    timeout: 240_000,
  }, async () => {
    const bin = (name: string) => join(REPO_ROOT, 'node_modules', '.bin', name);
    for (const tarball of tarballs) {
      const lint = await execa(bin('publint'), ['run', tarball, '--strict'], {
        reject: false,
        env: CLEAN_ENV,
      });
      expect(lint.exitCode, `${tarball}: ${lint.stdout}`).toBe(0);
      expect(lint.stdout).toContain('All good!');
      const types = await execa(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json'], {
        reject: false,
        env: CLEAN_ENV,
      });
      expect(types.exitCode, `${tarball}: ${types.stdout.slice(0, 2000)}`).toBe(0);
    }
  });

  it('give the `mime` command in node_modules/.bin, not the `mime` MIME-type package a dependency brings', async () => {
    const link = await readlink(join(project, 'node_modules', '.bin', 'mime'));
    expect(link).toBe('../@mime-desktop/cli/dist/main.js');
    const viaNpx = await execa('npx', ['--no-install', 'mime', '--version'], {
      cwd: project,
      env: CLEAN_ENV,
    });
    expect(viaNpx.stdout.trim()).toBe(version);
  });

  it('start the CLI with plain node, and validate a workflow', async () => {
    const cli = join(project, 'node_modules', '@mime-desktop', 'cli', 'dist', 'main.js');
    expect((await execa('node', [cli, '--version'], { env: CLEAN_ENV })).stdout.trim()).toBe(version);
    const ok = await execa('node', [cli, 'validate', DEMO_WORKFLOW], { env: CLEAN_ENV, reject: false });
    expect(ok.stderr).toContain('valid workflow');
    expect(ok.exitCode).toBe(0);
    const bad = await execa('node', [cli, 'validate', join(project, 'package.json')], {
      env: CLEAN_ENV,
      reject: false,
    });
    expect(bad.exitCode).toBe(2);
  });

  it('are importable from a plain .mjs script, which validates a workflow with line and column', async () => {
    const broken = join(root, 'broken');
    await mkdir(broken);
    const text = await readFile(join(DEMO_WORKFLOW, 'schema.json'), 'utf8');
    await writeFile(
      join(broken, 'schema.json'),
      text.replace('"action_type": "CLICK"', '"action_type": "HOVER"'),
    );
    const script = join(project, 'check.mjs');
    await writeFile(
      script,
      [
        "import { validateWorkflowTarget } from '@mime-desktop/schema';",
        'for (const dir of process.argv.slice(2)) {',
        '  const r = await validateWorkflowTarget(dir);',
        '  console.log(JSON.stringify({ valid: r.valid, problems: r.problems }));',
        '}',
      ].join('\n'),
    );
    const run = await execa('node', [script, DEMO_WORKFLOW, broken], { cwd: project, env: CLEAN_ENV });
    const [good, bad] = run.stdout.split('\n').map((line) => JSON.parse(line));
    expect(good).toEqual({ valid: true, problems: [] });
    expect(bad.valid).toBe(false);
    expect(bad.problems[0]).toMatchObject({ path: expect.stringContaining('action_type') });
    expect(bad.problems[0].line).toBeGreaterThan(1);
    expect(bad.problems[0].column).toBeGreaterThan(1);
  });

  it("type-check a consumer under module nodenext (the README examples, each package README's)", async () => {
    const examples = await readmeExamples();
    expect(examples.length).toBe(2);
    const byPackage = await packageReadmeExamples();
    // Every library's README shows its use in TypeScript; the CLI's shows commands.
    expect(PACKAGES.filter((_, k) => byPackage[k]?.length === 0)).toEqual(['cli']);
    const own = byPackage.flat();
    await mkdir(join(project, 'src'), { recursive: true });
    for (const [i, code] of examples.entries())
      await writeFile(join(project, 'src', `example-${i}.ts`), code);
    for (const [i, code] of own.entries()) await writeFile(join(project, 'src', `package-${i}.ts`), code);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2023',
          strict: true,
          outDir: 'out',
          types: ['node'],
          skipLibCheck: false,
        },
        include: ['src'],
      }),
    );
    const tsc = await execa('node', [TSC, '-p', 'tsconfig.json'], { cwd: project, reject: false });
    expect(tsc.stdout).toBe('');
    expect(tsc.exitCode).toBe(0);
  });
});

describe('the installed mime on the demo app', () => {
  let desktop: DesktopHarness;
  beforeAll(async () => {
    desktop = await startDesktopHarness({ keepDisplayUntilExit: false });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  async function demoWorkflow(): Promise<string> {
    const dir = join(await mkdtemp(join(tmpdir(), 'mime-consumer-wf-')), 'play-song');
    await execa('cp', ['-r', DEMO_WORKFLOW, dir]);
    return dir;
  }

  it('replays with the globally installed `mime` (npm install -g of the tarballs)', async () => {
    await desktop.resetApp();
    const dir = await demoWorkflow();
    const mime = globalMime;
    expect((await execa(mime, ['validate', dir], { env: CLEAN_ENV, reject: false })).exitCode).toBe(0);
    const junit = join(root, 'global-run.xml');
    const run = await execa(
      mime,
      ['replay', dir, '--param', 'song_name=Faint', '--json', '--reporter', 'junit', junit],
      {
        env: { ...CLEAN_ENV, DISPLAY: desktop.display, MIME_BASE_URL: undefined, MIME_MODEL: undefined },
        reject: false,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
    expect(await readFile(junit, 'utf8')).toMatch(/<testsuite name="play song"[^>]* tests="2" failures="0"/);
    expect((await desktop.readAppState()).playing).toBe('Faint');
  });

  it('serves the workflows to an MCP client with the installed `mime mcp` (stdio), which replays one', async () => {
    await desktop.resetApp();
    const home = await mkdtemp(join(tmpdir(), 'mime-consumer-home-'));
    await execa('mkdir', ['-p', join(home, 'workflows')]);
    await execa('cp', ['-r', DEMO_WORKFLOW, join(home, 'workflows', 'play-song')]);
    const client = new Client({ name: 'consumer', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: globalMime,
        args: ['mcp', '--home', home],
        // The client's own environment, as CLEAN_ENV cleans it (no workspace prefix, no colours).
        env: Object.fromEntries(
          Object.entries({ ...process.env, ...CLEAN_ENV, DISPLAY: desktop.display }).filter(
            (entry): entry is [string, string] => entry[1] !== undefined,
          ),
        ),
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('play_song');
      const result = await client.callTool(
        { name: 'play_song', arguments: { params: { song_name: 'Yellow' } } },
        undefined,
        {
          timeout: 120_000,
        },
      );
      expect(result.structuredContent).toMatchObject({
        outcome: 'success',
        extracts: { song_now_playing: 'Yellow' },
      });
    } finally {
      await client.close();
    }
  });

  it('runs the README library example as written, compiled to JavaScript', async () => {
    await desktop.resetApp();
    const dir = await demoWorkflow();
    const run = await execa('node', [join(project, 'out', 'example-0.js'), dir], {
      cwd: project,
      env: { ...CLEAN_ENV, DISPLAY: desktop.display, MIME_BASE_URL: undefined, MIME_MODEL: undefined },
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/: success, 0 model calls, report .*report\.html/);
    expect((await desktop.readAppState()).playing).toBe('Numb');
  });
});
