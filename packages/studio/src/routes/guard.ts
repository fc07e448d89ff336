/**
 * Who may ask the studio: every request must name this server in its Host (no DNS rebinding) and
 * carry the token (the strict HttpOnly cookie the printed URL sets, or `x-mime-token`); a write must
 * also come from this server's own Origin and carry `x-mime-studio: 1` (CSRF). Then the security
 * headers: the page loads nothing from elsewhere and is never framed; a run's report only by the page.
 * And a bound on request bodies.
 */
import { sameAccessToken } from '@mime-desktop/schema';
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { fail } from './answers.ts';

const COOKIE = 'mime_studio';
/** The largest request body (a workflow being saved). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A run's report is shown in a sandboxed frame of the page: its own inline style, data: images and script only. */
const REPORT_PATH = /^\/api\/workflows\/[^/]+\/runs\/[^/]+\/report$/;
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
});
const reportHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    imgSrc: ['data:'],
    styleSrc: ["'unsafe-inline'"],
    // The report's own meta policy narrows this to its script's hash; the sandbox gives it no origin.
    scriptSrc: ["'unsafe-inline'"],
    frameAncestors: ["'self'"],
    sandbox: ['allow-scripts'],
  },
  xFrameOptions: 'SAMEORIGIN',
  referrerPolicy: 'no-referrer',
});

/** Guards every route of `app` for `hosts`/`origins` and `token`. */
export function guardRoutes(app: Hono, guard: { token: string; hosts: () => string[] }): void {
  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (!guard.hosts().includes(host)) return fail(c, 403, 'MIME_FORBIDDEN', `Invalid Host header: ${host}`);
    if (c.req.method === 'GET' && c.req.path === '/' && sameAccessToken(c.req.query('token'), guard.token)) {
      setCookie(c, COOKIE, guard.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect('/', 303);
    }
    if (!sameAccessToken(getCookie(c, COOKIE) ?? c.req.header('x-mime-token'), guard.token)) {
      return fail(c, 401, 'MIME_UNAUTHORIZED', 'open the URL `mime studio` printed: it carries the token');
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (origin === undefined || !guard.hosts().some((h) => origin === `http://${h}`)) {
        return fail(c, 403, 'MIME_FORBIDDEN', `Invalid Origin header: ${origin ?? '(none)'}`);
      }
      if (c.req.header('x-mime-studio') !== '1') {
        return fail(c, 403, 'MIME_FORBIDDEN', 'a write must carry the x-mime-studio header');
      }
    }
    await next();
  });
  // The page loads nothing from elsewhere, is never framed (a report only by the page), and never sends
  // its address (the token was in it) to anyone.
  app.use('*', (c, next) => (REPORT_PATH.test(c.req.path) ? reportHeaders : pageHeaders)(c, next));
  // A workflow is a few hundred KiB; a request body is bounded well above that.
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        fail(c, 413, 'MIME_TOO_LARGE', `a request body is at most ${MAX_BODY_BYTES / 1024 / 1024} MiB`),
    }),
  );
}
