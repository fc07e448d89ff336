#!/usr/bin/env node
import { runCli } from './program.ts';

// A closed pipe (`mime list | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await runCli(process.argv.slice(2));
// The command is over, and so is the process: nothing a library left scheduled (an SDK's retry wait of
// a day, a request that never answers, a worker winding down) keeps it alive once the summary is out.
// Every command has released what it owns by now; what was written has reached its pipe or file.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((done) => s.write('', done))));
process.exit(code);
