/**
 * The agent's own settings and the state it keeps across a run's subtasks and hand-overs (its unusable
 * replies in a row, its scope): what the agent loop gets beside the run's context.
 */
import type { Desktop } from '@mime-desktop/os-io';
import type { Workflow } from '@mime-desktop/schema';
import { ReplayOptionError } from '../errors.ts';
import type { EventSink } from '../kernel/event-log.ts';
import { checkedInteger } from '../kernel/settings.ts';
import { withDefaults } from '../kernel/with-defaults.ts';
import {
  AgentScope,
  type AgentScopeSetting,
  DEFAULT_AGENT_SCOPE,
  type WindowLookup,
  windowsOf,
} from './agent-scope.ts';
import { DEFAULT_MODEL_IMAGE, type ModelImageOptions } from './model-image.ts';
import { DEFAULT_MAX_UNUSABLE_REPLIES, UnusableReplies } from './unusable-replies.ts';

/** An action waiting for the person's go-ahead (`--confirm`). */
export interface ConfirmRequest {
  subtask_i: number;
  iteration: number;
  /** `left_click at (157, 365)`, `type "{password}"`: sensitive values as placeholders. */
  description: string;
  observation: string;
}

/** `run` the action, `skip` it (the model is told), or `stop` the run (outcome aborted). */
export type ConfirmAnswer = 'run' | 'skip' | 'stop';

/** Default of `ReplayOptions.historyLimit`. */
export const DEFAULT_HISTORY_LIMIT = 8;
/** Default of `ReplayOptions.noProgressRepeats`. */
export const DEFAULT_NO_PROGRESS_REPEATS = 3;

/** The agent's options, as `ReplayOptions` takes them. */
export interface AgentOptions {
  confirmAction?: (request: ConfirmRequest) => Promise<ConfirmAnswer>;
  image?: ModelImageOptions;
  historyLimit?: number;
  noProgressRepeats?: number;
  maxUnusableReplies?: number;
  agentScope?: AgentScopeSetting;
}

/** Settings of the agent loop, defaults filled in. */
export interface AgentSettings {
  confirmAction: ((request: ConfirmRequest) => Promise<ConfirmAnswer>) | null;
  image: Required<ModelImageOptions>;
  historyLimit: number;
  noProgressRepeats: number;
  /** Where the agent may act: the workflow's app windows, or the whole screen. */
  agentScope: AgentScopeSetting;
  /** Unusable model replies in a row that stop the run. */
  maxUnusableReplies: number;
}

/** The agent's settings from its options, checked (bad values throw `ReplayOptionError`). */
export function resolveAgentSettings(options: AgentOptions): AgentSettings {
  const image = withDefaults(DEFAULT_MODEL_IMAGE, options.image ?? {});
  if (image.maxWidth < 64 || image.maxHeight < 64) {
    throw new ReplayOptionError(
      `image size must be at least 64x64, got ${image.maxWidth}x${image.maxHeight}`,
    );
  }
  return {
    confirmAction: options.confirmAction ?? null,
    image,
    historyLimit: checkedInteger(options.historyLimit, DEFAULT_HISTORY_LIMIT, 'historyLimit'),
    noProgressRepeats: checkedInteger(
      options.noProgressRepeats,
      DEFAULT_NO_PROGRESS_REPEATS,
      'noProgressRepeats',
      2,
    ),
    agentScope: options.agentScope ?? DEFAULT_AGENT_SCOPE,
    maxUnusableReplies: checkedInteger(
      options.maxUnusableReplies,
      DEFAULT_MAX_UNUSABLE_REPLIES,
      'maxUnusableReplies',
    ),
  };
}

/** The agent's settings and what it keeps across the run's subtasks and hand-overs. */
export interface AgentRuntime {
  settings: AgentSettings;
  /** The model's unusable replies in a row, across the run's subtasks and hand-overs. */
  unusable: UnusableReplies;
  /** The agent's scope, resolved (and said in the log) at its first use; null: the whole screen. */
  scope(desktop: WindowLookup & Pick<Desktop, 'windows'>): Promise<AgentScope | null>;
}

export function createAgentRuntime(
  settings: AgentSettings,
  workflow: Workflow,
  events: EventSink,
): AgentRuntime {
  let scope: Promise<AgentScope | null> | undefined;
  return {
    settings,
    unusable: new UnusableReplies(settings.maxUnusableReplies),
    scope: (desktop) => {
      scope ??= AgentScope.resolve(workflow, settings.agentScope, windowsOf(desktop), desktop).then(
        ({ scope, reason }) => {
          events.emit({ type: 'agent_scope', classes: scope ? [...scope.classes] : [], reason });
          return scope;
        },
      );
      return scope;
    },
  };
}
