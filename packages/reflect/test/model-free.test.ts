import {
  type AccessibleElement,
  type ManifestLine,
  shownName,
  unknownSafetyFacts,
} from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { mergeWorkflow } from '../src/merge.ts';
import { modelFreeCard, modelFreePlan } from '../src/model-free.ts';
import { buildSteps } from '../src/steps.ts';

const field = (app: string, window: string, props: Partial<AccessibleElement>): AccessibleElement => ({
  role: 'entry',
  name: '',
  label: null,
  app,
  window: { role: window, name: 'Shop' },
  path: [{ role: props.role ?? 'entry', name: props.name ?? '', index: 0 }],
  states: [],
  extents: null,
  ...props,
});
const line = (n: number, event: Record<string, unknown>): ManifestLine =>
  ({
    line: n + 1,
    event: { screenshot: `screenshots/${n}.png`, timestamp: n, details: null, ...event },
  }) as ManifestLine;

const lines: ManifestLine[] = [
  line(0, { action_type: 'click', action_details: { button: 'left', x: 10, y: 10 }, element: field('Chromium', 'frame', { name: 'E-mail address' }) }),
  line(1, { action_type: 'type', action_details: { text: 'ann@example.org', secret: false }, element: field('Chromium', 'frame', { name: 'E-mail address' }) }),
  line(2, { action_type: 'type', action_details: { text: '', secret: true }, element: field('Chromium', 'frame', { role: 'password text', name: 'Password' }) }),
  line(3, { action_type: 'type', action_details: { text: 'Oslo', secret: false }, element: field('zenity', 'dialog', { role: 'text', label: 'City' }) }),
  line(4, { action_type: 'type', action_details: { text: '42', secret: false } }),
  line(5, { action_type: 'key', action_details: { key: 'enter' }, element: field('zenity', 'dialog', { role: 'text', label: 'City' }) }),
  line(6, { action_type: null, action_details: {} }),
]; // biome-ignore format: a table
const steps = buildSteps(lines, { width: 100, height: 100 });

describe('a workflow without a model', () => {
  it('keeps no element that is a whole window or web document (a first click stored before the page had a tree)', () => {
    const frame = field('Firefox', 'frame', { role: 'frame', name: 'mime-form', path: [] });
    const page = field('Firefox', 'frame', { role: 'document web', name: 'mime-form' });
    const clicks = buildSteps(
      [frame, page].map((element, n) =>
        line(n, { action_type: 'click', action_details: { button: 'left', x: 280, y: 114 }, element }),
      ),
      { width: 1280, height: 800 },
    );
    expect(clicks.map((s) => s.event.element)).toEqual([undefined, undefined]);
    expect(modelFreeCard(clicks[0] as (typeof clicks)[number]).intent).toBe('Click the place at (280, 114).');
  });

  it('carries the window a pointer action was recorded in, with its frame, into the step; older events have none', () => {
    const window = {
      title: 'tk-form Address',
      classes: ['tkForm', 'Tkform'],
      box: { x: 40, y: 30, width: 320, height: 220 },
    };
    const built = buildSteps(
      [
        line(0, { action_type: 'click', action_details: { button: 'left', x: 200, y: 120 }, window }),
        line(1, { action_type: 'click', action_details: { button: 'left', x: 200, y: 170 } }),
      ],
      { width: 1280, height: 800 },
    );
    expect(built.map((step) => step.source.window)).toEqual([window, undefined]);
    const form = { name: 'form', description: '' };
    const cards = new Map(built.map((step) => [step.i, modelFreeCard(step)]));
    const merged = mergeWorkflow(form, built, cards, modelFreePlan(form, built));
    if (!merged.ok) throw new Error(JSON.stringify(merged.problems));
    const sources = merged.workflow.plan.subtasks.flatMap((s) => s.steps).map((s) => s.source);
    expect(sources.map((source) => source?.window)).toEqual([window, undefined]);
    expect(sources[1]).not.toHaveProperty('window');
  });

  it("does not name a param or a target after a widget's class (GTK 4 names an unlabelled entry GtkEntry)", () => {
    const gtk4 = buildSteps(
      [
        line(0, { action_type: 'type', action_details: { text: 'Ann', secret: false }, element: field('gtk4-form', 'frame', { name: 'GtkEntry', label: 'Name' }) }),
        line(1, { action_type: 'type', action_details: { text: 'Rome', secret: false }, element: field('gtk4-form', 'frame', { name: 'GtkEntry' }) }),
        line(2, { action_type: 'click', action_details: { button: 'left', x: 9, y: 9 }, element: field('gtk4-form', 'frame', { name: 'GtkEntry' }) }),
        line(3, { action_type: null, action_details: {} }),
      ],
      { width: 100, height: 100 },
    ); // biome-ignore format: a table
    const plan = modelFreePlan({ name: 'form', description: '' }, gtk4);
    expect(plan.task_params.map((p) => p.name)).toEqual(['name', 'text_2']);
    const card = modelFreeCard(gtk4[2] as (typeof gtk4)[number]);
    expect(`${card.intent} ${card.target.primary}`).not.toContain('GtkEntry');
    // A name that only looks like one (all capitals) is the field's own.
    expect(shownName({ name: 'QTY', label: null })).toBe('QTY');
    expect(shownName({ name: 'QLineEdit', label: 'Amount' })).toBe('Amount');
  });

  it('names params after the fields, keeps a secret sensitive, and splits subtasks where the app changes', () => {
    const plan = modelFreePlan({ name: 'sign in', description: '' }, steps);
    expect(plan.task_params.map((p) => [p.name, p.example, p.sensitive])).toEqual([
      ['e_mail_address', 'ann@example.org', false],
      ['password', null, true],
      ['city', 'Oslo', false],
      ['text_4', '42', false],
    ]);
    expect(plan.subtasks).toHaveLength(2);
    expect(plan.subtasks[0]).toMatch(
      /^Part 1 in Chromium: enter \{e_mail_address\} and \{password\}.*Expected outcome:/,
    );
    expect(plan.subtasks[1]).toMatch(/^Part 2 in zenity: enter \{city\} and \{text_4\}/);
    const cards = new Map(steps.map((step) => [step.i, modelFreeCard(step)]));
    expect(cards.get(0)?.intent).toBe('Click the entry "E-mail address" in Chromium.');
    expect(cards.get(3)?.target.primary).toBe('the text labelled "City" in zenity');
    const merged = mergeWorkflow({ name: 'sign in', description: '' }, steps, cards, plan);
    if (!merged.ok) throw new Error(JSON.stringify(merged.problems));
    const typed = merged.workflow.plan.subtasks
      .flatMap((s) => s.steps)
      .filter((s) => s.action_type === 'TYPE');
    expect(typed.map((s) => s.action_value)).toEqual([
      '{e_mail_address}',
      '{password}',
      '{city}',
      '{text_4}',
    ]);
    // The steps alone cannot tell the safety facts: unknown, never "no side effects".
    expect(unknownSafetyFacts(merged.workflow)).toEqual([
      'requires_login',
      'side_effects',
      'stops_before_payment',
    ]);
    expect(merged.workflow.side_effects).toBeUndefined();
  });
});
