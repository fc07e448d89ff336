import type { ActionAggregator } from './aggregate.ts';
import type { ControlRequest, ControlStatus } from './control.ts';
import type { EventWriter } from './event-writer.ts';
import type { Annotation, RecorderEvent } from './record-options.ts';
import type { RecordingStop } from './recording-stop.ts';
import type { SecretTyping } from './secret-typing.ts';

/** What the controls act on. */
export interface RecordingControlParts {
  sessionId: string;
  aggregator: ActionAggregator;
  writer: EventWriter;
  secret: SecretTyping;
  stop: RecordingStop;
  emit: (event: RecorderEvent) => void;
  /** Asks the person for an annotation; see `RecordOptions.promptAnnotation`. */
  promptAnnotation: (() => Promise<Annotation | null>) | undefined;
}

/**
 * What a person does to a running recording, by hotkey or through the control socket: annotate
 * (pausing while they are asked), toggle secret typing, stop, ask the status.
 */
export class RecordingControl {
  readonly #parts: RecordingControlParts;
  #paused = false;

  constructor(parts: RecordingControlParts) {
    this.#parts = parts;
  }

  /** Whether the person is being asked for an annotation (input is not recorded meanwhile). */
  get paused(): boolean {
    return this.#paused;
  }

  status(): ControlStatus {
    const { sessionId, writer, secret } = this.#parts;
    return { session_id: sessionId, events: writer.count, secret: secret.on, paused: this.#paused };
  }

  /** Answers a control socket request. */
  async handle(request: ControlRequest): Promise<ControlStatus> {
    if (this.#parts.stop.reason) throw new Error('the recording is stopping');
    if (request.type === 'extract' || request.type === 'details') this.annotate(request);
    else if (request.type === 'secret') this.setSecret(request.on);
    else if (request.type === 'stop') this.#parts.stop.stop('control');
    return this.status();
  }

  annotate(annotation: Annotation): void {
    if (annotation.type === 'details') {
      this.#parts.writer.addDetails(annotation.text);
      return;
    }
    this.#parts.aggregator.flush();
    this.#parts.writer.extract(annotation);
  }

  setSecret(on: boolean): void {
    const { aggregator, secret, emit } = this.#parts;
    if (secret.on === on) return;
    aggregator.flush();
    secret.set(on);
    emit({ type: 'secret', on });
  }

  /** Asks the person for an annotation, pausing the recording meanwhile; without a prompt, only says it was asked for. */
  async askAnnotation(): Promise<void> {
    const { promptAnnotation, aggregator, writer, emit, stop } = this.#parts;
    if (!promptAnnotation) {
      emit({ type: 'annotation-requested' });
      return;
    }
    this.#paused = true;
    aggregator.flush();
    writer.release();
    emit({ type: 'paused' });
    try {
      const annotation = await promptAnnotation();
      if (annotation && !stop.reason) this.annotate(annotation);
    } finally {
      this.#paused = false;
      emit({ type: 'resumed' });
    }
  }
}
