/**
 * A run's page (#/w/<id>/r/<run>, or .../s/<n> with step n selected): what it was, the heal it learned
 * (if any) to accept change by change, its steps read like a trace, and its report.
 */
import { api, fileUrl, runUrl, workflowPage } from './api.js';
import { failed, go, h, say, show } from './dom.js';
import { runStateLabel } from './run-state.js';
import { runTrace } from './run-trace.js';

/**
 * A run: what it was, its heal (if any), its steps with step `step` (1-based) selected, and its report;
 * `signal` gives it up when the page is left while it loads.
 */
export async function showRun(id, run, step, signal) {
  const [{ ok, body }, trace] = await Promise.all([
    api(runUrl(id, run), { signal }),
    runTrace(id, run, step, signal),
  ]);
  signal.throwIfAborted();
  if (!ok) return failed(body);
  const r = body.run;
  document.title = `Run ${run} · mime studio`;
  show(
    h('p', {}, h('a', { href: workflowPage(id) }, '← Workflow')),
    h('h1', {}, `Run ${run}`),
    h(
      'p',
      {},
      h(
        'span',
        { class: r.outcome || r.state === 'interrupted' ? `outcome-${r.outcome ?? r.state}` : 'muted' },
        r.outcome ?? runStateLabel(r.state),
      ),
      h(
        'span',
        { class: 'muted' },
        ` · ${r.mode ?? '?'} mode · started ${r.started_at ? new Date(r.started_at).toLocaleString() : '?'}`,
      ),
    ),
    healPanel(id, run, body.heal),
    trace,
    h('iframe', {
      class: 'report',
      title: 'Run report',
      src: `${runUrl(id, run)}/report`,
      sandbox: 'allow-scripts',
    }),
  );
  // A step's address shows that step.
  if (step !== null) trace?.scrollIntoView({ block: 'start' });
  say('');
}

/** The part of a screenshot around a step's target: its box with a margin, or around its point. */
function cropArea(view) {
  const margin = 40;
  if (view.box) {
    return {
      x: Math.max(0, view.box.x - margin),
      y: Math.max(0, view.box.y - margin),
      width: view.box.width + 2 * margin,
      height: view.box.height + 2 * margin,
    };
  }
  if (view.point)
    return { x: Math.max(0, view.point.x - 100), y: Math.max(0, view.point.y - 60), width: 200, height: 120 };
  return null;
}

/** A step as a heal shows it: the crop of its target on its frame, its action and intent. */
function healStep(id, run, view, side) {
  const area = cropArea(view);
  if (!view.screenshot) return healCaption(view, h('p', { class: 'muted' }, 'no screenshot'));
  const src =
    view.in === 'run'
      ? `${runUrl(id, run)}/file?path=${encodeURIComponent(view.screenshot)}`
      : fileUrl(id, view.screenshot);
  // A step with no place (an extract reads the whole screen) shows the whole screen, in its shape
  // before its pixels come: the choices below it stay put.
  if (!area) {
    const whole = h('img', { class: 'whole', src, alt: `${side}: the screen of "${view.intent}"` });
    if (view.size) whole.style.aspectRatio = `${view.size.width} / ${view.size.height}`;
    return healCaption(view, whole);
  }
  const image = h('img', { src, alt: `${side}: the target of "${view.intent}"` });
  image.style.left = `${-area.x}px`;
  image.style.top = `${-area.y}px`;
  const frame = h('div', { class: 'crop' }, image);
  frame.style.width = `${area.width}px`;
  frame.style.height = `${area.height}px`;
  if (view.box) {
    const box = h('span', { class: 'target' });
    Object.assign(box.style, {
      left: `${view.box.x - area.x}px`,
      top: `${view.box.y - area.y}px`,
      width: `${view.box.width}px`,
      height: `${view.box.height}px`,
    });
    frame.append(box);
  }
  return healCaption(view, frame);
}

/** A heal step's picture with what the step does under it. */
function healCaption(view, picture) {
  const action = view.action_value === null ? view.action_type : `${view.action_type} ${view.action_value}`;
  return h(
    'figure',
    { class: 'heal-step' },
    picture,
    h('figcaption', {}, h('strong', {}, action), ` ${view.intent}`),
  );
}

/** The heal a run learned: each change side by side, accepted or rejected, then applied. */
function healPanel(id, run, heal) {
  if (!heal) return null;
  const heading = h('h2', { id: 'heal-heading' }, 'The workflow is out of date on this screen');
  if (heal.state === 'refused') {
    return h(
      'section',
      { class: 'heal', 'aria-labelledby': 'heal-heading' },
      heading,
      h('p', { class: 'problem' }, `[${heal.code}] ${heal.message}`),
    );
  }
  const changes = heal.changes.map((change) =>
    h(
      'fieldset',
      { class: 'change' },
      h('legend', {}, change.text),
      h(
        'div',
        { class: 'sides' },
        h(
          'div',
          {},
          h('h3', {}, 'Recorded'),
          change.before.length
            ? change.before.map((v) => healStep(id, run, v, 'Recorded'))
            : h('p', { class: 'muted' }, 'no step'),
        ),
        h(
          'div',
          {},
          h('h3', {}, 'From this run'),
          change.after.map((v) => healStep(id, run, v, 'From this run')),
        ),
      ),
      h(
        'p',
        { class: 'choice' },
        ['accept', 'reject'].map((choice) =>
          h(
            'label',
            {},
            h('input', {
              type: 'radio',
              name: `heal-${change.id}`,
              value: choice,
              checked: choice === 'accept',
            }),
            choice === 'accept' ? ' Accept ' : ' Reject (keep as recorded) ',
          ),
        ),
      ),
    ),
  );
  const form = h(
    'form',
    {
      'aria-labelledby': 'heal-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const reject = heal.changes
          .filter((c) => form.elements[`heal-${c.id}`].value === 'reject')
          .map((c) => c.id);
        const result = await api(`${runUrl(id, run)}/heal`, { method: 'POST', body: { reject } });
        if (!result.ok)
          return say(result.body?.error?.message ?? 'the heal was not applied', { error: true });
        const { applied, rejected, backup } = result.body;
        go(
          workflowPage(id),
          `Healed: ${applied.length} change(s) written, ${rejected.length} rejected; the previous schema is kept as ${backup.split('/').at(-1)}`,
        );
      },
    },
    h(
      'p',
      {},
      'A heal records the workflow again from this run, so the next auto replay here needs no model. Accept or reject each change:',
    ),
    changes,
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Apply heal')),
    h(
      'details',
      {},
      h('summary', {}, 'schema.json as the heal writes it (every change accepted)'),
      h('pre', { class: 'diff' }, heal.diff),
    ),
  );
  return h('section', { class: 'heal' }, heading, form);
}
