/** Typed run events, read back from the log. */

import { type TypedRunEvent, typedRunEvent } from '@mime-desktop/schema';
import type { EventLog } from '../kernel/event-log.ts';

/** The run's events so far, each with its data typed. */
export function typedEvents(log: EventLog): TypedRunEvent[] {
  return log.events.map(typedRunEvent).filter((e): e is TypedRunEvent => e !== null);
}
