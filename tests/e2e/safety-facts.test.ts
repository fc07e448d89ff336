/**
 * A workflow's safety facts (`requires_login`, `side_effects`, `stops_before_payment`,
 * `safety_notes`) reach every place a person or an agent decides to run it: `mime list`, `mime replay`
 * before it starts, the MCP tool (annotations and description, read with the official SDK's client)
 * and the exported SKILL.md.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { MIME_BIN, runMime } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

/** A home with the demo workflow twice: `pay` states its facts, `quiet` states it has no side effects. */
async function homeWithFacts(): Promise<string> {
  const home = await tempDir('mime-safety-');
  const into = join(home, 'workflows');
  await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.task_name = 'buy song';
      schema.requires_login = true;
      schema.side_effects = ['Buys the song with the saved card.'];
      schema.stops_before_payment = false;
      schema.safety_notes = ['Charges the account.'];
    },
    { as: 'pay', into },
  );
  await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.task_name = 'look up song';
      schema.side_effects = [];
    },
    { as: 'quiet', into },
  );
  return home;
}

describe('safety facts', () => {
  it('are shown by mime list, and by mime replay before anything runs', async () => {
    const home = await homeWithFacts();
    const listed = await runMime(['list', '--home', home]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/pay +buy song .* login, 1 side effect, pays /);
    const json = JSON.parse((await runMime(['list', '--home', home, '--json'])).stdout);
    expect(json.workflows.find((w: { session_id: string }) => w.session_id === 'pay').safety).toEqual({
      requires_login: true,
      side_effects: ['Buys the song with the saved card.'],
      stops_before_payment: false,
      safety_notes: ['Charges the account.'],
      unknown: [],
    });
    // A fact the workflow does not state is unknown, never "none".
    expect(json.workflows.find((w: { session_id: string }) => w.session_id === 'quiet').safety).toMatchObject(
      {
        side_effects: [],
        requires_login: null,
        unknown: ['requires_login', 'stops_before_payment'],
      },
    );

    // No display here: the replay stops at its start, after it said what the workflow does.
    const replay = await runMime(['replay', join(home, 'workflows', 'pay'), '--param', 'song_name=Faint'], {
      env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined },
    });
    const lines = replay.stderr.split('\n');
    const facts = [
      '! Needs you to be logged in already.',
      '! Side effect: Buys the song with the saved card.',
      '! Does NOT stop before payment.',
      '! Note: Charges the account.',
    ];
    expect(lines.slice(0, 4)).toEqual(facts);
    expect(replay.exitCode).not.toBe(0);
  });

  it('become the MCP tool annotations and description, and a Safety section of SKILL.md', async () => {
    const home = await homeWithFacts();
    const client = new Client({ name: 'mime-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MIME_BIN, 'mcp', '--home', home],
        env: { ...(process.env as Record<string, string>), NO_COLOR: '1' },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const pay = tools.find((t) => t.name === 'buy_song');
      const quiet = tools.find((t) => t.name === 'look_up_song');
      expect(pay?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: true,
      });
      expect(pay?.description).toContain('Side effect: Buys the song with the saved card.');
      expect(pay?.description).toContain('Does NOT stop before payment.');
      expect(quiet?.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        openWorldHint: true,
      });
    } finally {
      await client.close();
    }

    const out = await tempDir('mime-skill-');
    const exported = await runMime(['export', 'skill', join(home, 'workflows', 'pay'), '--out', out]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const skill = await readFile(join(exported.stdout.trim(), 'SKILL.md'), 'utf8');
    expect(skill).toContain(
      '## Safety\n\n- Needs you to be logged in already.\n- Side effect: Buys the song with the saved card.\n- Does NOT stop before payment.\n- Note: Charges the account.\n\n## Inputs',
    );
  });
});
