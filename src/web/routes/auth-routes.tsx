import type { Context, Hono } from 'hono';
import type { AppContext } from '../../app/kernel.js';
import { completeSetup, describeSignInLink, rosterIsEmpty, signInWithLink, signInWithPassword, signOut, type SignInMeta } from '../../app/users/index.js';
import { refusalOf } from '../../http/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { WarrantError } from '../../core/errors.js';
import { LinkConfirmPage, SetupPage, SignInPage } from '../pages/sign-in.js';
import { htmlPage } from '../render.js';
import { clearSignInCookie, field, rawField, redirect, safeNext, setSignInCookie, webRoute } from '../web-request.js';

function meta(c: Context): SignInMeta {
  return { userAgent: c.req.header('user-agent') ?? null };
}

export function registerAuthRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  const signInPage = async (c: Context, csrf: string, next: string, error: WarrantError | null, key?: string) => {
    return htmlPage(
      c,
      <SignInPage mode={ctx.mode} csrf={csrf} next={next} error={error} {...(key !== undefined ? { key } : {})} />,
      error ? error.status : 200,
    );
  };

  webRoute(app, ctx, guard, 'GET', '/sign-in', 'public', async (c, r) => {
    if (await rosterIsEmpty(ctx)) return c.redirect('/setup', 303);
    const next = safeNext(c.req.query('next'));
    if (r.identity) return c.redirect(next, 303);
    return signInPage(c, r.csrf, next, null);
  });

  webRoute(app, ctx, guard, 'POST', '/sign-in', 'public', async (c, r) => {
    const next = safeNext(field(r.form, 'next'));
    const key = field(r.form, 'key');
    try {
      const signIn = await signInWithPassword(ctx, key, rawField(r.form, 'password'), meta(c));
      setSignInCookie(c, signIn);
      return redirect(c, next, r.htmx);
    } catch (error) {
      return signInPage(c, r.csrf, next, refusalOf(error), key);
    }
  });

  webRoute(app, ctx, guard, 'GET', '/sign-in/link/:secret', 'public', async (c, r) => {
    const secret = c.req.param('secret') ?? '';
    const next = safeNext(c.req.query('next'));
    try {
      const { user, expiresAt } = await describeSignInLink(ctx, secret);
      return htmlPage(c, <LinkConfirmPage user={user} expiresAt={expiresAt} secret={secret} csrf={r.csrf} next={next} />);
    } catch (error) {
      return signInPage(c, r.csrf, next, refusalOf(error));
    }
  });

  webRoute(app, ctx, guard, 'POST', '/sign-in/link', 'public', async (c, r) => {
    const next = safeNext(field(r.form, 'next'));
    try {
      const signIn = await signInWithLink(ctx, field(r.form, 'link'), meta(c));
      setSignInCookie(c, signIn);
      return redirect(c, next, r.htmx);
    } catch (error) {
      return signInPage(c, r.csrf, next, refusalOf(error));
    }
  });

  webRoute(app, ctx, guard, 'GET', '/setup', 'public', async (c, r) => {
    if (!(await rosterIsEmpty(ctx))) return c.redirect('/sign-in', 303);
    return htmlPage(c, <SetupPage mode={ctx.mode} csrf={r.csrf} />);
  });

  webRoute(app, ctx, guard, 'POST', '/setup', 'public', async (c, r) => {
    const values = { key: field(r.form, 'key').toLowerCase(), displayName: field(r.form, 'display_name') };
    try {
      const password = rawField(r.form, 'password');
      const signIn = await completeSetup(
        ctx,
        { code: field(r.form, 'code'), key: values.key, displayName: values.displayName, password: password === '' ? null : password },
        meta(c),
      );
      setSignInCookie(c, signIn);
      return redirect(c, '/', r.htmx);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.token === 'setup-done') return c.redirect('/sign-in', 303);
      return htmlPage(c, <SetupPage mode={ctx.mode} csrf={r.csrf} error={refusal} values={values} />, refusal.status);
    }
  });

  webRoute(app, ctx, guard, 'POST', '/sign-out', 'signed-in', async (c, r) => {
    await signOut(ctx, r.identity!);
    clearSignInCookie(c);
    return redirect(c, '/sign-in', r.htmx);
  });
}
