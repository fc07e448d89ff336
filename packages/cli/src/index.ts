export { EXIT, type ExitCode, exitCodeFor } from './exit-codes.ts';
export { MIME_VERSION, runCli } from './program.ts';
