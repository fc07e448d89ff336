import { z } from 'zod';
import { AccessibleElement } from './element.ts';
import { FileReadError, type Problem, ValidationError } from './errors.ts';
import { readJsonFile, readJsonlFile } from './json-files.ts';
import { KeyChordError, normalizeKeyChord } from './keys.ts';
import { RelativePath } from './paths.ts';
import { SourceWindow, WorkflowSetup } from './workflow.ts';
import { zodProblems } from './zod-problems.ts';

/** Recorded action types (lower case, as in ai_mime manifests). */
export const RECORDED_ACTION_TYPES = [
  'click',
  'double_click',
  'right_click',
  'middle_click',
  'type',
  'key',
  'scroll',
  'drag',
  'extract',
] as const;
export type RecordedActionType = (typeof RECORDED_ACTION_TYPES)[number];

export const MouseButton = z.enum(['left', 'right', 'middle']);
export type MouseButton = z.infer<typeof MouseButton>;

/** Logical screen size; physical pixels = logical x scale_factor. */
export const ScreenInfo = z.object({
  width: z.int().positive(),
  height: z.int().positive(),
  scale_factor: z.number().positive().default(1),
});
export type ScreenInfo = z.infer<typeof ScreenInfo>;

/**
 * ai_mime's compact UTC stamp, `20260602T202321Z` (the form of its session ids, which its
 * `record/storage.py` also writes as `created_at`, ai_mime c1a50ba), read as ISO 8601.
 */
const CompactStamp = z
  .string()
  .regex(/^\d{8}T\d{6}Z$/)
  .transform(
    (s) =>
      `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`,
  )
  .pipe(z.iso.datetime());

/** When a recording was made: ISO 8601, or ai_mime's compact stamp read as ISO 8601. */
export const CreatedAt = z.union([z.iso.datetime({ offset: true }), CompactStamp], {
  error: "must be an ISO 8601 date-time such as 2026-06-02T20:23:21Z (or ai_mime's 20260602T202321Z)",
});

/** `recordings/<session_id>/metadata.json`. Fields mime adds are optional so ai_mime files read too. */
export const RecordingMetadata = z.object({
  name: z.string().min(1, 'name must not be empty'),
  description: z.string().default(''),
  session_id: z.string().optional(),
  created_at: CreatedAt.optional(),
  platform: z.string().optional(),
  screen: ScreenInfo.optional(),
  mime_version: z.string().optional(),
  /** How the app was launched when the recording started (`mime record --launch`). */
  setup: WorkflowSetup.optional(),
});
export type RecordingMetadata = z.infer<typeof RecordingMetadata>;

const common = {
  screenshot: RelativePath.nullable().describe('The PRE frame, relative to the recording folder.'),
  timestamp: z.number().describe('Epoch seconds.'),
  details: z.string().nullable().default(null).describe('A note from a details annotation.'),
  pre_frame: z
    .literal('late')
    .optional()
    .describe('No frame from before the action existed: the screenshot is from after its first input.'),
  element: AccessibleElement.optional().describe(
    'The element under the pointer (clicks, drags, scrolls) or with the focus after a typing burst.',
  ),
  window: SourceWindow.optional().describe(
    'The window under the pointer as the action started, with its place (pointer actions).',
  ),
};
/** A screen coordinate: no screen is wider or taller than X11's 16-bit limit. */
const coordinate = z.number().min(-65535).max(65535);
/** A scroll's amount in one recorded event (a wheel gives a few units a notch). */
const scrollAmount = z.number().min(-1000).max(1000);

const pointer = z.object({ button: MouseButton.default('left'), x: coordinate, y: coordinate });
const pointerEvent = <T extends 'click' | 'double_click' | 'right_click' | 'middle_click'>(type: T) =>
  z.object({ action_type: z.literal(type), action_details: pointer, ...common });

export const ManifestEvent = z.discriminatedUnion('action_type', [
  pointerEvent('click'),
  pointerEvent('double_click'),
  pointerEvent('right_click'),
  pointerEvent('middle_click'),
  z.object({
    action_type: z.literal('type'),
    action_details: z
      .object({
        text: z.string(),
        secret: z.boolean().default(false),
        /** Some of what was typed could not be told from the keys (an IME, a key without a code): `text` misses it. */
        unresolved: z.boolean().optional(),
      })
      .refine((d) => !d.secret || d.text === '', {
        message: 'secret typing must not store its text; leave text empty',
        path: ['text'],
      }),
    ...common,
  }),
  z.object({
    action_type: z.literal('key'),
    action_details: z.object({ key: z.string().min(1) }),
    ...common,
  }),
  z.object({
    action_type: z.literal('scroll'),
    action_details: z.object({ x: coordinate, y: coordinate, dx: scrollAmount, dy: scrollAmount }),
    ...common,
  }),
  z.object({
    action_type: z.literal('drag'),
    action_details: z.object({
      button: MouseButton.default('left'),
      x: coordinate,
      y: coordinate,
      to_x: coordinate,
      to_y: coordinate,
    }),
    ...common,
  }),
  z.object({
    action_type: z.literal('extract'),
    action_details: z.object({ query: z.string().min(1), values: z.array(z.string()).default([]) }),
    ...common,
  }),
  z.object({ action_type: z.literal(null), action_details: z.object({}).default({}), ...common }),
]);
export type ManifestEvent = z.infer<typeof ManifestEvent>;
export type ActionManifestEvent = Exclude<ManifestEvent, { action_type: null }>;

type Loose = Record<string, unknown>;
const isRecord = (value: unknown): value is Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads ai_mime spellings into mime's: `"Button.left"` -> `left`, a `click` with the right or middle
 * button -> `right_click`/`middle_click`, key names (`Key.enter`, `ENTER`) -> chords (`enter`),
 * `voice_clip` and `pressed` dropped. Returns problems for keys that cannot be read.
 */
export function normalizeLegacyEvent(raw: unknown): { event: unknown; problems: Problem[] } {
  if (!isRecord(raw)) return { event: raw, problems: [] };
  const { voice_clip: _voice, ...event } = raw;
  const problems: Problem[] = [];
  const details = isRecord(event.action_details) ? { ...event.action_details } : event.action_details;
  if (isRecord(details)) {
    delete details.pressed;
    if (typeof details.button === 'string') {
      details.button = details.button.replace(/^Button\./i, '').toLowerCase();
      if (event.action_type === 'click' && (details.button === 'right' || details.button === 'middle')) {
        event.action_type = `${details.button}_click`;
      }
    }
    if (event.action_type === 'key' && typeof details.key === 'string') {
      try {
        details.key = normalizeKeyChord(details.key);
      } catch (error) {
        if (!(error instanceof KeyChordError)) throw error;
        problems.push({ path: 'action_details.key', message: error.message });
      }
    }
  }
  return { event: { ...event, action_details: details, details: event.details ?? null }, problems };
}

/** Parses one manifest line's value; `problems` paths are relative to the event. */
export function parseManifestEvent(
  raw: unknown,
): { ok: true; event: ManifestEvent } | { ok: false; problems: Problem[] } {
  const { event, problems } = normalizeLegacyEvent(raw);
  const parsed = ManifestEvent.safeParse(event);
  if (parsed.success && problems.length === 0) return { ok: true, event: parsed.data };
  return { ok: false, problems: [...problems, ...(parsed.success ? [] : zodProblems(parsed.error))] };
}

export interface ManifestLine {
  /** 1-based line number in manifest.jsonl. */
  line: number;
  event: ManifestEvent;
}

/** Reads manifest.jsonl; every bad line is reported as `line N: path: message`. */
export async function readManifest(file: string): Promise<ManifestLine[]> {
  const lines = await readJsonlFile(file);
  if (lines.length > MAX_RECORDED_EVENTS) {
    throw new FileReadError(
      file,
      `${lines.length} events; mime reads a recording of at most ${MAX_RECORDED_EVENTS} (an hour of steady work): record the task in shorter parts`,
    );
  }
  const events: ManifestLine[] = [];
  const problems: Problem[] = [];
  for (const { line, value } of lines) {
    const result = parseManifestEvent(value);
    if (result.ok) events.push({ line, event: result.event });
    else
      problems.push(
        ...result.problems.map((p) => ({
          path: `line ${line}${p.path ? `: ${p.path}` : ''}`,
          message: p.message,
        })),
      );
  }
  if (problems.length > 0) throw new ValidationError(file, 'recording manifest', problems);
  return events;
}

/** The most events a recording's manifest may hold. */
export const MAX_RECORDED_EVENTS = 10_000;

/** Reads and validates metadata.json. */
export async function readRecordingMetadata(file: string): Promise<RecordingMetadata> {
  const parsed = RecordingMetadata.safeParse(await readJsonFile(file));
  if (!parsed.success) throw new ValidationError(file, 'recording metadata', zodProblems(parsed.error));
  return parsed.data;
}
