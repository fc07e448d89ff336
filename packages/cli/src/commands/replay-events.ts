/**
 * A replay's events as the console shows them: one line (or a few) an event, names and values made
 * inert, the checks said with how they read the app.
 */
import { chooseAdapter, DEFAULT_ABORT_HOTKEY } from '@mime-desktop/os-io';
import { DEFAULT_PAUSE_HOTKEY, type ReplayEvent } from '@mime-desktop/replay';
import { formatPlace, formatStep, formatSubtask } from '@mime-desktop/schema';
import { inert, style } from '../output.ts';

/** A claim of the model checked on the live app: verified, refused (the model is told), unverified. */
function describeClaim(event: Extract<ReplayEvent, { type: 'claim' }>): string {
  const read = { app: ' (read from the app)', ocr: ' (read by OCR)' };
  const what = event.claim === 'done' ? 'the subtask' : 'the value';
  const detail = inert(event.detail);
  switch (event.verdict) {
    case 'verified':
      return style.dim(`    ✓ ${what} verified${event.read ? read[event.read] : ''}: ${detail}`);
    case 'refused':
      return style.yellow(`    ! the model's ${event.claim} refused: ${detail}`);
    case 'unverified':
      return style.yellow(
        `    ~ ${event.claim === 'done' ? 'done by the model, unverified' : 'value unverified'}: ${detail}`,
      );
  }
}

/** Where a divergence was found: at a step, or at its subtask's outcome check. */
function divergenceAt(subtask_i: number | null, step_i: number | null): string {
  if (step_i !== null) return formatStep(step_i);
  return `${subtask_i === null ? 'the subtask' : formatSubtask(subtask_i)} outcome`;
}

/** The files a workflow says it may touch (its optimized_plan.json), one line, or none without a plan. */
function describeFiles(files: { read: string[]; write: string[] } | undefined): string[] {
  if (!files) return [];
  const list = (paths: string[]) => (paths.length > 0 ? inert(paths.join(', ')) : 'none');
  return [`  files it may read: ${list(files.read)}; write: ${list(files.write)}`];
}

type RunStart = Extract<ReplayEvent, { type: 'run_start' }>;

/**
 * The Pass C steps ai_mime does by a script or a browser script (what each would do, the URL it
 * would open), and the success criteria the run checks on the app or only tells the model.
 */
function describePlan({ executors = [], criteria = [] }: RunStart): string[] {
  const subtasks = (list: number[]) => list.map((k) => formatSubtask(k)).join(', ');
  return [
    ...executors.map(
      (e) =>
        `  ${inert(e.step)} (${subtasks(e.subtasks)}): ai_mime runs a ${e.executor === 'script' ? 'script' : `${inert(e.executor)} script`} for it: ${inert(e.goal.replace(/[.\s]+$/, ''))}${e.url ? `; it would open ${inert(e.url)}` : ''}. mime replays its UI steps instead (it runs no code that came with a workflow)`,
    ),
    ...criteria.map((c) =>
      c.checks.length > 0
        ? `  checked after ${formatSubtask(c.subtask_i)}: ${inert(c.criterion)} (the app must show ${c.checks.map((t) => inert(JSON.stringify(t))).join(', ')})`
        : style.dim(`  not checked (names nothing the app shows): ${inert(c.criterion)}`),
    ),
  ];
}

/** The run's first lines: what replays, where its folder is, its params and how to stop it. */
function describeStart(event: RunStart): string {
  const params = Object.entries(event.params).map(([k, v]) => `${inert(k)}=${inert(v)}`);
  return [
    `${style.cyan('▶')} Replaying "${inert(event.task_name)}" (${event.mode} mode${event.dry_run ? ', dry run: nothing is executed' : ''})`,
    style.dim(`  run folder: ${event.dir}`),
    style.dim(`  params: ${params.length > 0 ? params.join(', ') : 'none'}`),
    ...event.warnings.map((w) => `  ${style.yellow('warning')} ${inert(w)}`),
    ...describeFiles(event.files),
    ...describePlan(event),
    style.dim(
      // Wayland tells no program where the pointer is: the corner works only on X11.
      {
        wlroots: `  stop: Ctrl+C or ${DEFAULT_ABORT_HOTKEY}; pause: ${DEFAULT_PAUSE_HOTKEY}`,
        // GNOME binds no hotkey for mime.
        gnome: '  stop: Ctrl+C',
        x11: `  stop: Ctrl+C, ${DEFAULT_ABORT_HOTKEY}, or move the pointer into a screen corner; pause: ${DEFAULT_PAUSE_HOTKEY}`,
      }[chooseAdapter(process.env)],
    ),
  ].join('\n');
}

/** A passed check that read the app's content says how it read (a layout check prints nothing). */
function describeVerified(event: Extract<ReplayEvent, { type: 'verify' }>): string | null {
  if (!event.read) return null;
  const what = event.check === 'subtask_outcome' ? 'outcome' : 'typed text';
  const how = event.read === 'app' ? 'read from the app' : 'read by OCR';
  const took = event.took_ms === undefined ? '' : `, ${event.took_ms} ms`;
  return `    ${style.green('✓')} ${what} verified ${style.dim(`(${how}${took})`)}`;
}

/** A failed check: where, and what it found (by content) or how alike the crops were (by pixels). */
function describeDivergence(event: Extract<ReplayEvent, { type: 'divergence' }>): string {
  const where = divergenceAt(event.subtask_i ?? null, event.step_i);
  const when = { before_step: 'before it ran', after_step: 'after it ran', subtask_outcome: '' }[event.check];
  const found =
    event.read && event.reason
      ? `${inert(event.reason)} (${event.read === 'app' ? 'read from the app' : 'read by OCR'})`
      : `${Math.round(event.similarity * 100)}% alike (needs ${Math.round(event.threshold * 100)}%)`;
  return style.red(
    `    ✗ ${where} diverged${when ? ` ${when}` : ''}: ${found}; crops ${event.expected}, ${event.observed}`,
  );
}

export function describeEvent(event: ReplayEvent): string | null {
  switch (event.type) {
    case 'run_start':
      return describeStart(event);
    case 'subtask_start':
      return `${style.bold(`[${event.position}/${event.count}]`)} ${inert(event.text)}${event.origin === 'replan' ? style.dim(' (replanned)') : ''}`;
    case 'action': {
      const marks = {
        executed: '',
        dry_run: style.dim(' (dry run)'),
        skipped: style.yellow(' (skipped)'),
        failed: style.red(` (failed: ${inert(event.error ?? '')})`),
        refused: style.yellow(` (refused: ${inert(event.error ?? '')})`),
      };
      return `    ${style.dim(`#${(event.iteration ?? 0) + 1}`)} ${inert(event.description)}${marks[event.status]}`;
    }
    case 'step': {
      const how = {
        trace: style.dim('trace'),
        regrounded: style.cyan('re-grounded'),
        agent: style.yellow('to agent'),
        skipped: style.yellow('skipped'),
      };
      const rung = event.rung ? style.dim(` [${event.rung}]`) : '';
      return `    ${style.dim(formatPlace(event.subtask_i ?? null, event.step_i))} ${how[event.executed_by]}${rung} ${inert(event.description)}${style.dim(` (${inert(event.reason)})`)}`;
    }
    case 'paused':
      return style.yellow(`  ⏸ paused before the next action; press ${event.hotkey} again to resume`);
    case 'resumed':
      return style.green('  ▶ resumed');
    case 'divergence':
      return describeDivergence(event);
    case 'agent_scope':
      return style.dim(`  the model may act on: ${inert(event.reason)}`);
    case 'handover':
      return style.yellow(`    → the model takes over the rest of this subtask: ${inert(event.reason)}`);
    case 'setup':
      return style.dim(
        `${event.fresh ? '  reset the app to its recorded starting state;' : ''}${
          event.launched
            ? `  launched ${event.command}; its window (${event.window}) appeared after ${(event.waited_ms / 1000).toFixed(1)} s`
            : `  the app's window (${event.window}) is open`
        }`,
      );
    case 'extract':
      return `    ${style.dim(`#${(event.iteration ?? 0) + 1}`)} extract ${inert(event.variable)} = ${inert(JSON.stringify(event.value))}`;
    case 'repair':
      return style.yellow(
        `    ! invalid call, asking again: ${event.problems.map((p) => p.message).join('; ')}`,
      );
    case 'done':
      return `    ${style.green('✓')} done: ${inert(event.result ?? event.observation)}`;
    case 'claim':
      return describeClaim(event);
    case 'verify':
      return describeVerified(event);
    case 'replan':
      return style.yellow(`  ↻ replanning (${event.trigger}): ${inert(event.reason)}`);
    case 'budget_exhausted':
      return style.red(`  budget exhausted: ${event.budget} (${event.used}/${event.limit})`);
    case 'app_window_gone':
      return style.red(`  the app's window is gone: no window with ${inert(event.window)} is open`);
    case 'error':
      return event.iteration === null
        ? null
        : style.yellow(`    ! ${event.code}: ${inert(event.message.split('\n')[0] ?? '')}`);
    default:
      return null;
  }
}
