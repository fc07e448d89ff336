import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * Holds a credential so that it cannot leak by accident: `String()`, `JSON.stringify` and
 * `util.inspect` all print `[redacted]`. Only {@link Secret.reveal} gives the value back.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The real value, for the one place that sends it (the HTTP `Authorization` header). */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** `text` with every occurrence of the secret replaced by `[redacted]`. */
export function redactSecret(text: string, secret: Secret | null): string {
  const value = secret?.reveal();
  return value ? text.replaceAll(value, REDACTED) : text;
}

/**
 * Removes the secret from an error thrown by a lower layer (its message, stack and any string inside
 * its fields, such as an echoed server error body) so it can be kept as `cause` safely. Changes the
 * error in place and returns it.
 */
export function redactErrorInPlace<E>(error: E, secret: Secret | null): E {
  if (!secret?.reveal()) return error;
  redactValue(error, secret, new Set());
  return error;
}

function redactValue(value: unknown, secret: Secret, seen: Set<object>): unknown {
  if (typeof value === 'string') return redactSecret(value, secret);
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  const keys =
    value instanceof Error ? ['message', 'stack', 'cause', ...Object.keys(value)] : Object.keys(value);
  for (const key of new Set(keys)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor || !('value' in descriptor) || !descriptor.writable) continue;
    const record = value as Record<string, unknown>;
    record[key] = redactValue(record[key], secret, seen);
  }
  return value;
}

/** User names and passwords inside URLs (`https://user:key@host`), anywhere in a text. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi;

/** The text with the credentials of every URL in it replaced by `***`. */
export function redactURLCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1***@');
}
