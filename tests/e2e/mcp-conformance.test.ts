/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against
 * `mime mcp --http` with a home holding the demo workflow. The suite needs Node 22+ and sends no
 * header: it runs on Node 24 from npm (tests/support/npm-cache.ts, cached under node_modules/.cache
 * with the suite itself) through a loopback proxy that adds the bearer token. Every server scenario
 * of the 2025-11-25 spec runs once; each one mime claims (the server features it implements) must pass
 * every check, and every message mime sent in any scenario must be valid per the spec's JSON schema
 * (the suite's `wire-schema-valid` check). Skipped, saying why, only when the npm registry cannot be
 * reached to install what is not cached yet.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import {
  cleanEnv,
  type NpmNode,
  nodeFromNpm,
  npmPackage,
  RegistryUnreachableError,
} from '@mime-desktop/test-support/npm-cache';
import { type RunningMime, startMime } from '@mime-desktop/test-support/run-mime';
import { startTokenProxy, type TokenProxy } from '@mime-desktop/test-support/token-proxy';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The newest release that runs against mime (0.1.16 is `latest`; this one adds session lifecycle and wire-schema checks). */
const SUITE_VERSION = '0.2.0-alpha.12';
/** The protocol revision mime's SDK (1.x) speaks. */
const SPEC = '2025-11-25';

/** The scenarios mime claims: the server features it implements. */
const CLAIMED = [
  'server-initialize',
  'server-session-lifecycle',
  'ping',
  'tools-list',
  'resources-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
] as const;

/** Every other server scenario of the spec revision, and why mime does not claim it. */
const NOT_CLAIMED: Record<string, string> = {
  'logging-set-level': 'no logging capability',
  'completion-complete': 'no completions capability',
  'tools-call-simple-text':
    "calls the reference server's test_simple_text; mime's unknown-tool error has text, which the loose check takes as a pass",
  'tools-call-error': "calls the reference server's test_error_handling (mime's unknown-tool error passes)",
  'tools-call-image': "calls the reference server's test tool",
  'tools-call-audio': "calls the reference server's test tool",
  'tools-call-embedded-resource': "calls the reference server's test tool",
  'tools-call-mixed-content': "calls the reference server's test tool",
  'tools-call-with-logging': "calls the reference server's test tool",
  'tools-call-with-progress':
    "calls the reference server's test tool (mime's progress is checked by mcp-http-spec.test.ts)",
  'tools-call-sampling': 'mime asks the client for no sampling',
  'tools-call-elicitation': 'mime asks the client for no elicitation',
  'elicitation-sep1034-defaults': 'mime asks the client for no elicitation',
  'elicitation-sep1330-enums': 'mime asks the client for no elicitation',
  'resources-read-text': "reads the reference server's test:// resources",
  'resources-read-binary': "reads the reference server's test:// resources",
  'resources-templates-read': 'no resource templates',
  'resources-subscribe': 'no resource subscriptions (list changes are notified)',
  'resources-unsubscribe': 'no resource subscriptions (list changes are notified)',
  'prompts-list': 'no prompts capability',
  'prompts-get-simple': 'no prompts capability',
  'prompts-get-with-args': 'no prompts capability',
  'prompts-get-embedded-resource': 'no prompts capability',
  'prompts-get-with-image': 'no prompts capability',
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  description?: string;
  errorMessage?: string;
}

const fileTempDir = useTempDirs();
const TOKEN = 'conformance-token-0123456789abcdef';

/** The suite's results folder: each scenario's checks (`server-<scenario>-<timestamp>/checks.json`). */
async function readResults(dir: string): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>();
  for (const entry of await readdir(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    results.set(scenario, JSON.parse(await readFile(join(dir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

const failuresOf = (checks: readonly Check[]) =>
  checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);

/** Node 24 and the suite's entry, from the cache or npm; a reason to skip when npm cannot be reached. */
async function suiteTools(): Promise<{ node: NpmNode; entry: string } | { skip: string }> {
  try {
    const node = await nodeFromNpm('24');
    const suite = await npmPackage('mcp-conformance', '@modelcontextprotocol/conformance', SUITE_VERSION);
    return { node, entry: join(suite.dir, 'dist', 'index.js') };
  } catch (error) {
    if (error instanceof RegistryUnreachableError) return { skip: error.message };
    throw error;
  }
}

describe(`the MCP conformance suite ${SUITE_VERSION} against mime mcp --http`, () => {
  let tools: Awaited<ReturnType<typeof suiteTools>>;
  let server: RunningMime | undefined;
  let proxy: TokenProxy | undefined;
  let results: Map<string, Check[]>;
  let suiteOutput = '';

  beforeAll(async () => {
    tools = await suiteTools();
    if ('skip' in tools) return;
    const home = await fileTempDir('mime-conformance-');
    await copyWorkflow('play-song', undefined, { into: join(home, 'workflows') });
    server = startMime(['mcp', '--http', '--home', home], {
      env: { MIME_MCP_TOKEN: TOKEN, DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
    });
    const line = await server.waitForStderr(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/, 30_000);
    const url = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1] ?? '';
    proxy = await startTokenProxy(url, TOKEN);
    const out = join(home, 'results');
    const run = await execa(
      tools.node.node,
      [tools.entry, 'server', '--url', proxy.url, '--spec-version', SPEC, '-o', out],
      {
        cwd: home,
        env: { ...cleanEnv(), PATH: `${tools.node.bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
        extendEnv: false,
        reject: false,
        timeout: 45_000,
        stdin: 'ignore',
        all: true,
      },
    );
    suiteOutput = String(run.all ?? '');
    results = await readResults(out).catch(() => new Map<string, Check[]>());
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    server?.kill('SIGTERM');
    await server?.done;
  });

  it('runs every server scenario of the spec revision, each either claimed or set aside with a reason', (ctx) => {
    if ('skip' in tools) return ctx.skip(tools.skip);
    expect([...results.keys()].sort(), suiteOutput.slice(-2000)).toEqual(
      [...CLAIMED, ...Object.keys(NOT_CLAIMED)].sort(),
    );
  });

  it.for(CLAIMED)('passes %s', (scenario, ctx) => {
    if ('skip' in tools) return ctx.skip(tools.skip);
    const checks = results.get(scenario) ?? [];
    expect(failuresOf(checks)).toEqual([]);
    expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
  });

  it("sends only messages valid per the spec's JSON schema, in every scenario", (ctx) => {
    if ('skip' in tools) return ctx.skip(tools.skip);
    const invalid = [...results].flatMap(([scenario, checks]) =>
      checks
        .filter((c) => c.id === 'wire-schema-valid' && c.status !== 'SUCCESS')
        .map((c) => `${scenario}: ${c.errorMessage}`),
    );
    expect(invalid).toEqual([]);
    const schemaChecked = [...results.values()].filter((checks) =>
      checks.some((c) => c.id === 'wire-schema-valid'),
    );
    expect(schemaChecked.length).toBeGreaterThan(CLAIMED.length);
  });
});
