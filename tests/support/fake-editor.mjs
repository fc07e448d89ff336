#!/usr/bin/env node
// A scripted stand-in for $EDITOR in `mime edit` tests: each run applies the next step of the plan in
// $FAKE_EDITOR_PLAN to the file it is given, and appends what it was shown to $FAKE_EDITOR_LOG. A step's
// `meanwhile` text is appended to $FAKE_EDITOR_ORIGINAL (the workflow's own file) as another writer would.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2];
const planFile = process.env.FAKE_EDITOR_PLAN;
const counterFile = `${planFile}.count`;
const round = existsSync(counterFile) ? Number(readFileSync(counterFile, 'utf8')) : 0;
writeFileSync(counterFile, String(round + 1));
const step = JSON.parse(readFileSync(planFile, 'utf8'))[round] ?? { keep: true };
const shown = readFileSync(file, 'utf8');
if (process.env.FAKE_EDITOR_LOG) appendFileSync(process.env.FAKE_EDITOR_LOG, `=== round ${round}\n${shown}`);

const body = shown
  .split('\n')
  .filter((line) => !line.startsWith('//'))
  .join('\n');
if (step.exit !== undefined) process.exit(step.exit);
// Another writer changes the workflow meanwhile (a heal, a second edit).
if (step.meanwhile) appendFileSync(process.env.FAKE_EDITOR_ORIGINAL, step.meanwhile);
if (step.empty) writeFileSync(file, '');
if (step.write !== undefined) writeFileSync(file, step.write);
if (step.set) {
  const doc = JSON.parse(body);
  let node = doc;
  for (const key of step.set.path.slice(0, -1)) node = node[key];
  node[step.set.path.at(-1)] = step.set.value;
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}
