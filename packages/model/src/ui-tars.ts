/**
 * UI-TARS's reply grammar (`MIME_TOOL_MODE=ui-tars`): the model answers in its own text format,
 *
 *     Thought: The search field is at the top.
 *     Action: click(start_box='(412,88)')
 *
 * and the caller translates the action into one of its tools. Points are read in every spelling the
 * UI-TARS releases use: `'(412,88)'`, `'<|box_start|>(412,88)<|box_end|>'`, `'<point>412 88</point>'`,
 * `'[412, 88]'`, and boxes (`'(10,20,30,40)'`, `<bbox>`) as their center.
 */
import type { Problem } from '@mime-desktop/schema';
import type { Checked } from './output.ts';
import { stripReasoning } from './output.ts';

/** One UI-TARS action: its name (`click`, `hotkey`, ...) and arguments; points as `[x, y]`. */
export interface UiTarsAction {
  name: string;
  args: Record<string, string | [number, number]>;
  /** The reply's `Thought:` (or `Reflection:`) text; empty when it has none. */
  thought: string;
}

/** How a caller offers its tools in UI-TARS's grammar. */
export interface UiTarsDialect {
  /** The system text: the action space, in UI-TARS's own format. */
  prompt: string;
  /** The tool call an action stands for, or the problems that say what to answer instead. */
  translate(action: UiTarsAction): Checked<{ name: string; args: unknown }>;
}

const problem = (message: string): Checked<never> => ({ ok: false, problems: [{ path: '', message }] });

/** Reads the one action of a UI-TARS reply; no `Action:` or two actions are problems. */
export function readUiTarsReply(text: string): Checked<UiTarsAction> {
  const body = stripReasoning(text);
  const at = actionStart(body);
  if (at === -1) return problem('no "Action:" line; end the reply with Action: <one action>');
  const head = body.slice(0, at);
  const thought = /(?:Thought|Reflection)\s*[:：]\s*([\s\S]*)$/i.exec(head)?.[1]?.trim() ?? head.trim();
  const calls = [
    ...body
      .slice(at)
      .replace(/^\s*Action\s*[:：]/i, '')
      .matchAll(/([a-z_]+)\s*\(((?:'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|[^()'"]|\([^()]*\))*)\)/gi),
  ];
  const [call, ...others] = calls;
  if (!call) return problem("the Action line holds no action such as click(start_box='(x,y)')");
  if (others.length > 0) return problem(`${calls.length} actions; write exactly one action per reply`);
  const args: UiTarsAction['args'] = {};
  const problems: Problem[] = [];
  for (const arg of (call[2] ?? '').matchAll(/([a-z_]+)\s*=\s*('(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")/gi)) {
    const key = arg[1] as string;
    const value = unquote(arg[2] as string);
    if (/(_box|point)$/i.test(key)) {
      const point = readPoint(value);
      if (point) args[key] = point;
      else
        problems.push({ path: key, message: `${JSON.stringify(value)} is not a point such as '(412,88)'` });
    } else {
      args[key] = value;
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { name: (call[1] as string).toLowerCase(), args, thought } };
}

/**
 * Where the action starts: an `Action:` line (a full-width `Action：` too, as doubao-1.5-ui-tars
 * writes it), else the last `Action:` in the middle of a line after the thought, else (LM Studio with
 * GGUF builds returns the action line alone) the first line that reads as a call; -1 when none.
 */
function actionStart(body: string): number {
  const line = body.search(/^\s*Action\s*[:：]/im);
  if (line !== -1) return line;
  const inline = [...body.matchAll(/\bAction\s*[:：]/g)].at(-1);
  if (inline?.index !== undefined) return inline.index;
  return body.search(/^\s*[a-z_]+\s*\(/im);
}

function unquote(quoted: string): string {
  return quoted
    .slice(1, -1)
    .replace(/\\n/g, '\n')
    .replace(/\\t/g, '\t')
    .replace(/\\(['"\\])/g, '$1');
}

/** `(x,y)`, `<point>x y</point>`, `[x, y]` or a box `(x1,y1,x2,y2)` (its center), tokens stripped. */
function readPoint(value: string): [number, number] | null {
  const numbers = value
    .replace(/<\|?\/?[a-z_]+\|?>/gi, ' ')
    .match(/-?\d+(?:\.\d+)?/g)
    ?.map(Number);
  if (!numbers || (numbers.length !== 2 && numbers.length !== 4)) return null;
  const [x1, y1, x2 = x1, y2 = y1] = numbers as [number, number, number?, number?];
  return [(x1 + (x2 as number)) / 2, (y1 + (y2 as number)) / 2];
}
