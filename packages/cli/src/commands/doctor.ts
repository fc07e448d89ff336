import type { DoctorCheck } from '@mime-desktop/schema';
import type { Command } from 'commander';
import { type DoctorOptions, runDoctor } from '../doctor.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { mark, printJson, say, style } from '../output.ts';

function line(check: DoctorCheck): string[] {
  const icons = { ok: mark.ok(), fail: mark.fail(), warn: mark.warn(), skip: style.dim('-') };
  const icon = icons[check.status];
  const out = [`${icon} ${style.bold(check.name)}: ${check.detail}`];
  if (check.fix) out.push(`    ${style.cyan('fix:')} ${check.fix}`);
  return out;
}

export function registerDoctor(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('doctor')
    .summary('check that this machine can record, reflect and replay')
    .description(
      'Check what mime needs (Node, a display, the accessibility bus, the model endpoint) and say how to fix each problem.',
    )
    .option('--offline', 'do not contact the model endpoint')
    .option(
      '--model',
      'ask the model for one click on a screenshot: do tool calls work natively or only as text, which coordinate convention fits, how long a turn takes',
    )
    .option('--config <file>', 'model config file (default: $MIME_CONFIG, else ~/.config/mime/config.json)')
    .option('--json', 'print the checks as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime doctor\n  MIME_COORDINATES=pixels mime doctor --model\n  MIME_BASE_URL=http://127.0.0.1:8000/v1 MIME_MODEL=qwen3-vl mime doctor --json\n\nExit codes: 0 no check failed (warnings say what works with less), 1 a check failed.',
    )
    .action((options: DoctorOptions & { json?: boolean }) =>
      run(
        (async () => {
          const checks = await runDoctor(options);
          const ok = checks.every((c) => c.status !== 'fail');
          if (options.json) printJson({ ok, checks });
          else for (const check of checks) for (const l of line(check)) say(l);
          return ok ? EXIT.ok : EXIT.failed;
        })(),
      ),
    );
}
