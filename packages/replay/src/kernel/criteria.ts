/**
 * What a success criterion of ai_mime's Pass C plan (`optimized_plan.json`, `steps[].success_criteria`)
 * says the app should show once its step is done, as texts a check can look for: a quoted text (its
 * `{name}` and bare names of params and constants filled with this run's values) and each param or
 * constant the criterion names, by its value. ai_mime's Pass C names variables bare ("The now-playing
 * bar shows song_name.", prakhar1114/ai_mime c1a50ba, src/ai_mime/reflect/schema_compiler.py,
 * PASS_C_USER_TEMPLATE: "Use semantic variable names"); `{name}` is read too. A criterion in free prose
 * ("A video is playing.") names nothing checkable: it goes to the agent's prompt and the report only.
 */

/** A text a success criterion says the app shows: `text` is this run's, `source` what named it. */
export interface ExpectedText {
  text: string;
  /** The param or constant whose value it is, or `quoted text`. */
  source: string;
}

/** A Pass C step's success criterion and the texts it makes checkable (none: free prose). */
export interface CriterionCheck {
  /** The Pass C step's id, when it has one. */
  step: string | null;
  criterion: string;
  texts: ExpectedText[];
}

/** A quoted text: "…", “…”, or '…' not inside a word (an apostrophe is no quote). */
const QUOTED = /"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d|(?<![\p{L}\p{N}])'([^'\n]+)'(?![\p{L}\p{N}])/gu;
const NAME = /\{([A-Za-z_][A-Za-z0-9_]*)\}|(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_])/g;

/** Whether a value alone tells anything on a screen: a letter in it and two characters at least ("3" does not). */
const telling = (value: string) => value.trim().length >= 2 && /\p{L}/u.test(value);

/**
 * The texts `criterion` says the app shows. `values`: this run's values of the params and constants
 * a criterion may name (never a sensitive param's); `withheld`: the names whose value must not be
 * looked for (sensitive params): a quoted text naming one is left out.
 */
export function expectedTexts(
  criterion: string,
  values: Readonly<Record<string, string>>,
  withheld: ReadonlySet<string> = new Set(),
): ExpectedText[] {
  const texts: ExpectedText[] = [];
  const add = (text: string, source: string) => {
    const trimmed = text.trim();
    if (trimmed !== '' && !texts.some((t) => t.text === trimmed)) texts.push({ text: trimmed, source });
  };
  const known = (name: string) => Object.hasOwn(values, name);
  for (const match of criterion.matchAll(QUOTED)) {
    const quoted = match[1] ?? match[2] ?? match[3] ?? '';
    let unknown = false;
    const filled = quoted.replace(NAME, (whole, braced?: string, bare?: string) => {
      const name = braced ?? bare ?? '';
      if (withheld.has(name) || (braced !== undefined && !known(name))) unknown = true;
      return known(name) ? (values[name] as string) : whole;
    });
    if (!unknown) add(filled, 'quoted text');
  }
  const prose = criterion.replace(QUOTED, ' ');
  for (const match of prose.matchAll(NAME)) {
    const name = match[1] ?? match[2] ?? '';
    const value = known(name) ? (values[name] as string) : null;
    if (value !== null && !withheld.has(name) && telling(value)) add(value, name);
  }
  return texts;
}

/** How a criterion's texts read for a person: `"Numb" (song_name), "Sent to Bob" (quoted text)`. */
export function describeTexts(texts: readonly ExpectedText[]): string {
  return texts.map((t) => `${JSON.stringify(t.text)} (${t.source})`).join(', ');
}
