/**
 * The token a local server (the MCP server over HTTP, the studio) asks every request for: random, and
 * compared in constant time so a client cannot learn it a character at a time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A new token: 32 random bytes, base64url. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `given` is `token`, in time that does not depend on where they differ. */
export function sameAccessToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
