import type { Context, Hono } from 'hono';
import type { AppContext } from '../../app/kernel.js';
import { addUser, editUser, findRosterUser, issueHumanToken, listIssuedTokens, listUsers, renameUser, revokeIssuedToken } from '../../app/users/index.js';
import { WarrantError } from '../../core/errors.js';
import { refusalOf } from '../../http/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { RosterPage, UserPage, type UserFormValues } from '../pages/roster-pages.js';
import { htmlPage } from '../render.js';
import { field, rawField, webRoute, type FormData, type WebRequest } from '../web-request.js';

/** `/supervisor/users`: every act goes through the roster use cases (which authorize 'admin'). */

function formValues(form: FormData): UserFormValues {
  return {
    key: field(form, 'key'),
    displayName: field(form, 'display_name'),
    email: field(form, 'email'),
    slack: field(form, 'slack_user_ids'),
    notes: rawField(form, 'notes'),
  };
}

function slackIds(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== '');
}

const NOTICES: Record<string, string> = {
  added: 'Added.',
  saved: 'Saved.',
  revoked: 'Token revoked.',
};

export function registerRosterRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  const route = (method: 'GET' | 'POST', path: string, handler: Parameters<typeof webRoute>[6]) => webRoute(app, ctx, guard, method, path, 'admin', handler);

  const rosterPage = async (c: Context, r: WebRequest, extra: { error?: WarrantError; values?: UserFormValues } = {}) => {
    const caller = r.identity!.caller;
    const users = await listUsers(ctx, caller);
    const active = new Map<number, number>();
    for (const t of await listIssuedTokens(ctx, caller, { kind: 'human' }))
      if (!t.revokedAt && t.userId !== null) active.set(t.userId, (active.get(t.userId) ?? 0) + 1);
    return htmlPage(c, <RosterPage identity={r.identity!} csrf={r.csrf} users={users} activeTokens={active} {...extra} />, extra.error?.status ?? 200);
  };

  const userPage = async (
    c: Context,
    r: WebRequest,
    key: string,
    extra: { error?: WarrantError; values?: UserFormValues; notice?: string | null; issued?: { token: string; credentialId: number } } = {},
  ) => {
    const caller = r.identity!.caller;
    const user = await findRosterUser(ctx, caller, key);
    if (!user) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    const tokens = await listIssuedTokens(ctx, caller, { kind: 'human', userKey: key });
    return htmlPage(c, <UserPage identity={r.identity!} csrf={r.csrf} user={user} tokens={tokens} {...extra} />, extra.error?.status ?? 200);
  };

  const keyOf = (c: Context) => c.req.param('key') ?? '';
  const page = (key: string, notice?: string) => `/supervisor/users/${encodeURIComponent(key)}${notice ? `?notice=${notice}` : ''}`;

  route('GET', '/supervisor/users', (c, r) => rosterPage(c, r));

  route('POST', '/supervisor/users', async (c, r) => {
    const values = formValues(r.form);
    try {
      const user = await addUser(ctx, r.identity!.caller, {
        key: values.key ?? '',
        displayName: values.displayName,
        email: values.email || null,
        slackUserIds: slackIds(values.slack),
        notes: values.notes.trim() ? values.notes : null,
      });
      return c.redirect(page(user.key, 'added'), 303);
    } catch (error) {
      return rosterPage(c, r, { error: refusalOf(error), values });
    }
  });

  route('GET', '/supervisor/users/:key', (c, r) => {
    const notice = NOTICES[c.req.query('notice') ?? ''] ?? null;
    const renamedFrom = c.req.query('renamed_from');
    return userPage(c, r, keyOf(c), {
      notice: renamedFrom
        ? `Renamed from ${renamedFrom}. Nothing is orphaned: records keep naming this person, and show the key they were captured under.`
        : notice,
    });
  });

  route('POST', '/supervisor/users/:key', async (c, r) => {
    const values = formValues(r.form);
    try {
      await editUser(ctx, r.identity!.caller, keyOf(c), {
        displayName: values.displayName || keyOf(c),
        email: values.email || null,
        slackUserIds: slackIds(values.slack),
        notes: values.notes.trim() ? values.notes : null,
      });
      return c.redirect(page(keyOf(c), 'saved'), 303);
    } catch (error) {
      return userPage(c, r, keyOf(c), { error: refusalOf(error), values });
    }
  });

  route('POST', '/supervisor/users/:key/rename', async (c, r) => {
    try {
      const user = await renameUser(ctx, r.identity!.caller, keyOf(c), field(r.form, 'new_key'));
      return c.redirect(`/supervisor/users/${encodeURIComponent(user.key)}?renamed_from=${encodeURIComponent(keyOf(c))}`, 303);
    } catch (error) {
      return userPage(c, r, keyOf(c), { error: refusalOf(error) });
    }
  });

  // The token is shown once, in this response: never in a URL a redirect would log.
  route('POST', '/supervisor/users/:key/tokens', async (c, r) => {
    const label = field(r.form, 'label');
    const issued = await issueHumanToken(ctx, r.identity!.caller, keyOf(c), label || undefined);
    return userPage(c, r, keyOf(c), { issued });
  });

  route('POST', '/supervisor/users/:key/tokens/:id/revoke', async (c, r) => {
    const id = Number(c.req.param('id'));
    const key = keyOf(c);
    const user = await findRosterUser(ctx, r.identity!.caller, key);
    const owned = user ? (await listIssuedTokens(ctx, r.identity!.caller, { kind: 'human', userKey: key })).some((t) => t.id === id) : false;
    if (!owned) throw new WarrantError('token-not-found', `${key} has no human token with credential id ${c.req.param('id')}.`);
    await revokeIssuedToken(ctx, r.identity!.caller, id);
    if (r.htmx) return c.body(null, 204, { 'hx-redirect': page(key, 'revoked') });
    return c.redirect(page(key, 'revoked'), 303);
  });
}
