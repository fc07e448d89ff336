import type { Problem } from '@mime-desktop/schema';
import type { CallUsage } from './usage.ts';

/** `structured` or `toolCall`. */
export type CallKind = 'structured' | 'tool-call';

interface CallEventBase {
  /** Numbers the logical calls of one client, from 1. */
  callId: number;
  kind: CallKind;
  /** The structured output's name, or the offered tool names joined by `,`. */
  name: string;
}

/** What a `ModelClient` reports through `onEvent`. Never contains the API key. */
export type ModelEvent =
  | (CallEventBase & { type: 'call-start'; model: string })
  /** The call finished: `errorCode` is `null` on success, else the thrown error's `code`. */
  | (CallEventBase & { type: 'call-end'; errorCode: string | null; usage: CallUsage })
  /** The SDK is about to send HTTP attempt `attempt` (2 = first retry) after `reason`. */
  | { type: 'retry'; callId: number; attempt: number; reason: string }
  /** The output was unusable; repair round `round` (from 1) asks again with these problems. */
  | { type: 'repair'; callId: number; round: number; problems: readonly Problem[] }
  /** The server rejected `response_format`; this client uses a forced tool call from now on. */
  | { type: 'mode-fallback'; callId: number; from: 'json_schema'; to: 'tool'; reason: string };

/** Receives events; must not throw. */
export type ModelEventListener = (event: ModelEvent) => void;
