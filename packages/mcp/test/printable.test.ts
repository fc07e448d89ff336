import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Workflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { skillMarkdown } from '../src/export-skill.ts';
import { printable } from '../src/printable.ts';

describe('printable', () => {
  it('shows ESC, BEL, NUL and a bidirectional override as escapes, keeping line breaks', () => {
    expect(printable('a\u001b[2Jb\u0007c\u0000d\u202ee\nf', 100)).toBe('a\\x1b[2Jb\\x07c\\x00d\\u202ee\nf');
  });

  it('bounds the text, saying it was cut', () => {
    const shown = printable('x'.repeat(200_000), 2000);
    expect(shown).toHaveLength(2000);
    expect(shown.endsWith('…')).toBe(true);
  });
});

describe('SKILL.md', () => {
  it("shows a shared workflow's escape sequences and HTML as text", async () => {
    const file = join(
      import.meta.dirname,
      '..',
      '..',
      '..',
      'fixtures',
      'workflows',
      'play-song',
      'schema.json',
    );
    const workflow = Workflow.parse(JSON.parse(await readFile(file, 'utf8')));
    workflow.task_name = 'play \u001b]0;owned\u0007 song <script>alert(1)</script>';
    workflow.success_criteria = 'done\u202e';
    const markdown = skillMarkdown(workflow, 'play-song');
    expect(markdown.replaceAll('\n', '')).not.toMatch(/[\p{Cc}\u202e]/u);
    expect(markdown).not.toContain('<script>');
    expect(markdown).toContain('# play \\x1b]0;owned\\x07 song &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markdown).toContain('done\\u202e');
  });
});
