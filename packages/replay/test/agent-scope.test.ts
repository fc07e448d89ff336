import {
  type FoundWindow,
  type LogicalPoint,
  UnsupportedPlatformError,
  type WindowQuery,
} from '@mime-desktop/os-io';
import { Workflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { AgentScope, type WindowLookup, windowsOf } from '../src/agent/agent-scope.ts';

const APP: FoundWindow = { id: '10', title: 'mime-demo', classes: ['chromium', 'Chromium'] };
const DIALOG: FoundWindow = { id: '11', title: 'Save as', classes: ['chromium', 'Chromium'] };
const TERMINAL: FoundWindow = { id: '20', title: 'bash', classes: ['xterm', 'XTerm'] };

/** The app on the left half of a 1000 px wide screen, a terminal on the right half. */
function lookup(focused: FoundWindow | null, pointer: LogicalPoint = { x: 10, y: 10 }): WindowLookup {
  return {
    windowAt: async (point) => (point.x < 500 ? APP : TERMINAL),
    focusedWindow: async () => focused,
    pointerPosition: async () => pointer,
  };
}

const workflow = (extra: object = {}) =>
  Workflow.parse({
    task_name: 't',
    plan: { subtasks: [{ subtask_i: 0, text: 'Do it.', steps: [] }] },
    ...extra,
  });

describe('AgentScope.resolve', () => {
  it("takes the classes of the setup window and of the recording's windows that are open", async () => {
    const asked: WindowQuery[] = [];
    const find = async (query: WindowQuery) => {
      asked.push(query);
      return query.title === '^mime-demo ' ? [APP] : [];
    };
    const { scope, reason } = await AgentScope.resolve(
      workflow({ setup: { command: 'chromium', window: { title: '^mime-demo ' } } }),
      'app',
      find,
    );
    expect(asked).toEqual([{ title: '^mime-demo ' }]);
    expect([...(scope?.classes ?? [])]).toEqual(['chromium', 'Chromium']);
    expect(reason).toBe('windows of class Chromium');
  });

  it('leaves the whole screen, saying why, on a desktop that cannot tell the window under a point (GNOME)', async () => {
    const gnome = {
      windowAt: async () => {
        throw new UnsupportedPlatformError('GNOME (mutter) tells no program its windows');
      },
      focusedWindow: async () => null,
      pointerPosition: async () => ({ x: 0, y: 0 }),
    };
    const setup = workflow({ setup: { command: 'chromium', window: { title: '^mime-demo ' } } });
    const { scope, reason } = await AgentScope.resolve(setup, 'app', async () => [APP], gnome);
    expect(scope).toBeNull();
    expect(reason).toBe(
      'the whole screen: this desktop cannot keep it to the app (GNOME (mutter) tells no program its windows)',
    );
    // A desktop that tells it keeps the scope.
    const x11 = { ...gnome, windowAt: async () => APP };
    expect((await AgentScope.resolve(setup, 'app', async () => [APP], x11)).scope?.names).toEqual([
      'Chromium',
    ]);
  });

  it('leaves the whole screen, saying why, with --agent-scope screen or without a named window', async () => {
    const never = async () => {
      throw new Error('not asked');
    };
    expect(await AgentScope.resolve(workflow(), 'screen', never)).toEqual({
      scope: null,
      reason: 'the whole screen (--agent-scope screen)',
    });
    const none = await AgentScope.resolve(workflow(), 'app', never);
    expect(none.scope).toBeNull();
    expect(none.reason).toContain('the workflow names no app window');
    const closed = await AgentScope.resolve(
      workflow({ setup: { command: 'x', window: { class: '^gedit$' } } }),
      'app',
      async () => [],
    );
    expect(closed.scope).toBeNull();
    expect(closed.reason).toContain("none of the workflow's windows (class /^gedit$/) is open");
  });
});

describe('windowsOf', () => {
  it("finds the windows a query asks for among the run's desktop's own windows", async () => {
    const find = windowsOf({ windows: async () => [APP, DIALOG, TERMINAL] });
    expect(await find({ title: '^mime-demo$' })).toEqual([APP]);
    expect(await find({ class: '^Chromium$' })).toEqual([APP, DIALOG]);
    expect(await find({ title: '^bash$', class: '^Chromium$' })).toEqual([]);
  });
});

describe('AgentScope.refusal', () => {
  const scope = new AgentScope([APP]);

  it('lets pointer actions inside the app and its other windows run', async () => {
    const inside = lookup(APP);
    expect(await scope.refusal({ action: 'left_click', point: { x: 100, y: 100 } }, inside)).toBeNull();
    expect(scope.holds(DIALOG)).toBe(true);
    expect(
      await scope.refusal(
        { action: 'left_click_drag', point: { x: 10, y: 10 }, endPoint: { x: 400, y: 10 } },
        inside,
      ),
    ).toBeNull();
  });

  it('refuses a click, a drag end or a pointerless scroll outside, naming the window', async () => {
    const click = await scope.refusal({ action: 'left_click', point: { x: 700, y: 100 } }, lookup(APP));
    expect(click).toBe(
      '(700, 100) is on "bash" (class XTerm), outside the windows of the app this task is about (class Chromium); act inside them',
    );
    const drag = await scope.refusal(
      { action: 'left_click_drag', point: { x: 10, y: 10 }, endPoint: { x: 900, y: 10 } },
      lookup(APP),
    );
    expect(drag).toMatch(/^\(900, 10\) is on "bash"/);
    const scroll = await scope.refusal(
      { action: 'scroll', direction: 'down', amount: 3, point: null },
      lookup(APP, { x: 800, y: 5 }),
    );
    expect(scroll).toMatch(/^\(800, 5\) is on "bash"/);
  });

  it('refuses typing and keys while the focus is outside, and lets them run inside', async () => {
    const typed = await scope.refusal({ action: 'type', text: 'rm -rf ~' }, lookup(TERMINAL));
    expect(typed).toMatch(
      /^the keyboard focus is on "bash" \(class XTerm\), outside .*click into the app first/,
    );
    expect(await scope.refusal({ action: 'key', keys: 'ctrl+l' }, lookup(null))).toMatch(/the bare desktop/);
    expect(await scope.refusal({ action: 'type', text: 'Faint' }, lookup(APP))).toBeNull();
    expect(await scope.refusal({ action: 'wait', seconds: 1 }, lookup(TERMINAL))).toBeNull();
  });

  it("holds a window that matches the setup's class expression", () => {
    const bySetup = new AgentScope([], { class: '^(xterm|XTerm)$' });
    expect(bySetup.classes.size).toBe(0);
    expect(bySetup.holds(TERMINAL)).toBe(true);
    expect(bySetup.holds(APP)).toBe(false);
  });
});
