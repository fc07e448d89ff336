/**
 * A flag that takes one value is given once: `--mode trace --mode agent` is refused (exit 2), never
 * silently the last. Flags that collect a list (`--param`) take {@link collectRepeated} as their
 * parser and may repeat, and a variadic flag takes several values; the same value given twice is
 * harmless and accepted.
 */
import type { Command } from 'commander';

/** The parser of a flag that may be given many times: its values in order. */
export function collectRepeated(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Makes every single-value flag of `command` and its subcommands refuse a second, different value. */
export function refuseRepeatedFlags(command: Command): void {
  for (const option of command.options) {
    // A variadic flag (`--reporter junit <file>`) is told once a value: it takes several by design.
    const single = (option.required || option.optional) && !option.variadic;
    if (!single || option.parseArg === collectRepeated) continue;
    const given: unknown[] = [];
    command.on(`option:${option.name()}`, (value: unknown) => {
      const first = given[0];
      if (given.length > 0 && value !== first) {
        command.error(
          `${option.long ?? option.flags} is given twice, as ${JSON.stringify(first)} and ${JSON.stringify(value)}: give it once`,
          { exitCode: 2, code: 'mime.repeatedOption' },
        );
      }
      given.push(value);
    });
  }
  command.commands.forEach(refuseRepeatedFlags);
}
