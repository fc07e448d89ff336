/**
 * The agent's tools in UI-TARS's grammar (`MIME_TOOL_MODE=ui-tars`): the action space UI-TARS was
 * trained on, and each of its actions as the agent tool it stands for. `finished(content=...)` is an
 * extract while the subtask still has a value to read (without content, the value is read in a
 * follow-up request), else `done` with the content as its result; `call_user()` asks for a new plan.
 */
import type { UiTarsAction, UiTarsDialect } from '@mime-desktop/model';
import type { RequiredExtract } from '../kernel/plan.ts';
import { describePointSpace, type PointSpace } from './coordinates.ts';

const CLICKS: Record<string, string> = {
  click: 'left_click',
  left_single: 'left_click',
  left_double: 'double_click',
  double_click: 'double_click',
  right_single: 'right_click',
  right_click: 'right_click',
  middle_click: 'middle_click',
  hover: 'mouse_move',
  mouse_move: 'mouse_move',
};

/** UI-TARS's `wait()` sleeps this long, seconds. */
const UI_TARS_WAIT_SECONDS = 5;

/** The dialect for one turn: points in the model's convention, `pending` the values still to read. */
export function uiTarsDialect(space: PointSpace, pending: readonly RequiredExtract[]): UiTarsDialect {
  return {
    prompt: [
      'You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task.',
      '',
      '## Output Format',
      '```',
      'Thought: ...',
      'Action: ...',
      '```',
      '',
      '## Action Space',
      "click(start_box='(x1,y1)')",
      "left_double(start_box='(x1,y1)')",
      "right_single(start_box='(x1,y1)')",
      "drag(start_box='(x1,y1)', end_box='(x2,y2)')",
      "hotkey(key='ctrl c') # Split keys with a space and use lowercase.",
      "type(content='xxx') # Use escape characters \\', \\\", and \\n in content. End with \\n to submit.",
      "scroll(start_box='(x1,y1)', direction='down or up or right or left')",
      'wait() # Sleep for 5s and take a screenshot to check for any changes.',
      "finished(content='xxx') # The current subtask is complete; put a value the subtask asks to read in content.",
      'call_user() # The subtask cannot be done from this screen.',
      '',
      '## Note',
      `- Points are ${describePointSpace(space)}.`,
      '- Write a small plan and finally summarize your next action (with its target element) in one sentence in `Thought` part.',
    ].join('\n'),
    translate: (action) => translate(action, pending),
  };
}

type Translated = ReturnType<UiTarsDialect['translate']>;

const computer = (thought: string, args: Record<string, unknown>): Translated => ({
  ok: true,
  value: { name: 'computer_use', args: { observation: thought, task_memory: null, ...args } },
});

function translate(action: UiTarsAction, pending: readonly RequiredExtract[]): Translated {
  const { name, args, thought } = action;
  const click = CLICKS[name];
  if (click) return computer(thought, { action: click, coordinate: args.start_box ?? args.point ?? null });
  switch (name) {
    case 'drag':
    case 'select':
      return computer(thought, {
        action: 'left_click_drag',
        coordinate: args.start_box ?? args.start_point ?? null,
        end_coordinate: args.end_box ?? args.end_point ?? null,
      });
    case 'hotkey':
    case 'press':
      return computer(thought, {
        action: 'key',
        keys: String(args.key ?? args.hotkey ?? '')
          .trim()
          .split(/\s+/)
          .join('+'),
      });
    case 'type':
      return computer(thought, { action: 'type', text: args.content ?? null });
    case 'scroll':
      return computer(thought, {
        action: 'scroll',
        coordinate: args.start_box ?? args.point ?? null,
        scroll_direction: args.direction ?? null,
      });
    case 'wait':
      return computer(thought, { action: 'wait', wait_seconds: UI_TARS_WAIT_SECONDS });
    case 'finished': {
      const content = typeof args.content === 'string' ? args.content.trim() : '';
      const [next] = pending;
      if (next) {
        // Without content the value is read in a follow-up request (as for ai_mime's extract).
        return {
          ok: true,
          value: {
            name: 'extract',
            args: {
              observation: thought,
              task_memory: null,
              variable_name: next.variable,
              query: next.query,
              value: content === '' ? null : content,
            },
          },
        };
      }
      const result = content === '' ? null : content;
      return { ok: true, value: { name: 'done', args: { observation: thought, task_memory: null, result } } };
    }
    case 'call_user':
      return {
        ok: true,
        value: {
          name: 'replan',
          args: { observation: thought, task_memory: null, reason: thought || 'The model asked for help.' },
        },
      };
    default:
      return {
        ok: false,
        problems: [
          {
            path: '',
            message: `"${name}" is not an action here; use click, left_double, right_single, drag, hotkey, type, scroll, wait, finished or call_user`,
          },
        ],
      };
  }
}
