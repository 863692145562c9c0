import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import type { AppContext } from '../app/kernel.js';
import { authenticateWebSession, rosterIsEmpty, type WebIdentity, type WebSignIn } from '../app/users/index.js';
import { findInputProblem } from '../core/wire-input.js';
import { WarrantError } from '../core/errors.js';
import { refusalOrInternal } from '../http/errors.js';
import type { HostGuard } from '../http/host-guard.js';
import { CSRF_FIELD, CSRF_HEADER, csrfMatches, csrfTokenForCredential, csrfTokenForPreSignIn } from './csrf.js';
import { renderErrorPage, renderErrorFragment } from './pages/error-page.js';

const SESSION_COOKIE = 'warrant_session';
const PRE_SIGN_IN_COOKIE = 'warrant_pre';

/** Who may reach a UI route: anyone (sign-in pages, assets), a signed-in human, an admin. */
type WebAccess = 'public' | 'signed-in' | 'admin';

export type FormData = Record<string, string | string[]>;

export interface WebRequest {
  identity: WebIdentity | null;
  /** the CSRF token forms on this response must carry */
  csrf: string;
  /** the request came from htmx (answer with a fragment) */
  htmx: boolean;
  /** the parsed form body of an unsafe request */
  form: FormData;
}

type WebHandler = (c: Context, r: WebRequest) => Promise<Response>;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Security headers on every UI response. The CSP allows scripts and styles from this origin
 * only: no inline script can run even if escaping ever failed (docs/operations.md).
 */
function secure(res: Response): Response {
  const h = res.headers;
  h.set(
    'content-security-policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
  h.set('x-content-type-options', 'nosniff');
  h.set('x-frame-options', 'DENY');
  // sign-in links carry their secret in the path: never send it to another site. (Not
  // `no-referrer`: with it a browser sends `Origin: null` on form posts, which the
  // Origin allowlist must refuse.)
  h.set('referrer-policy', 'same-origin');
  if (!h.has('cache-control')) h.set('cache-control', 'no-store');
  return res;
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:';
}

/** docs/concepts.md, docs/operations.md: HttpOnly, SameSite=Lax, Secure under TLS. */
export function setSignInCookie(c: Context, signIn: WebSignIn): void {
  setCookie(c, SESSION_COOKIE, signIn.cookieSecret, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    path: '/',
    expires: new Date(signIn.expiresAt),
  });
}

export function clearSignInCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c), httpOnly: true, sameSite: 'Lax' });
}

/** The pre-sign-in CSRF cookie: set on the sign-in and first-run pages when missing. */
function preSignInToken(ctx: AppContext, c: Context): string {
  let value = getCookie(c, PRE_SIGN_IN_COOKIE);
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
    value = randomBytes(32).toString('base64url');
    setCookie(c, PRE_SIGN_IN_COOKIE, value, { httpOnly: true, sameSite: 'Lax', secure: isHttps(c), path: '/', maxAge: 60 * 60 * 24 });
  }
  return csrfTokenForPreSignIn(ctx, value);
}

export function field(form: FormData, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

/** A field kept exactly as typed (a password, a prompt): only a missing field becomes ''. */
export function rawField(form: FormData, name: string): string {
  const v = form[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

async function parseForm(c: Context): Promise<FormData> {
  const type = c.req.header('content-type') ?? '';
  if (!type.includes('application/x-www-form-urlencoded') && !type.includes('multipart/form-data')) return {};
  const body = await c.req.parseBody({ all: true });
  const out: FormData = {};
  for (const [k, v] of Object.entries(body)) {
    if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
    else if (typeof v === 'string') out[k] = v;
    // one answer on both stores, and the same check as REST and MCP (http/input-guard.ts)
    const problem = findInputProblem({ [k]: out[k] });
    if (problem) throw new WarrantError('invalid-request', `${k}: ${problem.message}`, { details: { field: k } });
  }
  return out;
}

export function redirect(c: Context, to: string, htmx: boolean): Response {
  if (htmx) return c.body(null, 204, { 'hx-redirect': to });
  return c.redirect(to, 303);
}

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next.slice(0, 500);
}

/**
 * Registers a UI route: Host/Origin allowlist (docs/concepts.md), first-run gate, the sign-in cookie,
 * CSRF on unsafe methods, admin gate, and one error mapping into HTML. A route never sees a
 * request that failed any of these.
 */
export function webRoute(
  app: Hono<any>,
  ctx: AppContext,
  guard: HostGuard,
  method: 'GET' | 'POST',
  path: string,
  access: WebAccess,
  handler: WebHandler,
): void {
  app.on(method, path, async (c) => {
    const htmx = c.req.header('hx-request') === 'true';
    let identity: WebIdentity | null = null;
    let csrf = '';
    try {
      await guard.check(c.req.raw);
      if (access !== 'public' && (await rosterIsEmpty(ctx))) return secure(redirect(c, '/setup', htmx));
      identity = await authenticateWebSession(ctx, getCookie(c, SESSION_COOKIE));
      if (access !== 'public' && !identity) {
        const next = method === 'GET' && !htmx ? c.req.path + (new URL(c.req.url).search || '') : '/';
        if (method === 'GET' && !htmx) return secure(c.redirect(`/sign-in?next=${encodeURIComponent(next)}`, 303));
        return secure(c.body('Sign in first.', 401, { 'hx-redirect': '/sign-in', 'content-type': 'text/plain; charset=utf-8' }));
      }
      csrf = identity ? csrfTokenForCredential(ctx, identity.session.credentialId) : preSignInToken(ctx, c);
      let form: FormData = {};
      if (UNSAFE.has(c.req.method)) {
        form = await parseForm(c);
        const presented = c.req.header(CSRF_HEADER) ?? field(form, CSRF_FIELD);
        if (!csrfMatches(csrf, presented)) {
          throw new WarrantError(
            'csrf-failed',
            'This form was refused: its CSRF token is missing or wrong (a page from another site, or an expired page). Reload the page and try again.',
          );
        }
      }
      if (access === 'admin' && !identity?.user.isAdmin) {
        throw new WarrantError('forbidden', 'The roster is for admins only: ask an admin, or use the host CLI (`warrant users …`).');
      }
      return secure(await handler(c, { identity, csrf, htmx, form }));
    } catch (error) {
      const e = refusalOrInternal(error, ctx.logger, { method: c.req.method, path: c.req.path }, 'unhandled web UI error');
      const res = htmx ? await renderErrorFragment(c, e) : await renderErrorPage(c, e, identity, csrf);
      return secure(res);
    }
  });
}
