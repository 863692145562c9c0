import type { Hono } from 'hono';
import type { AppContext } from '../../app/kernel.js';
import { findRosterUser, listIssuedTokens } from '../../app/users/index.js';
import { listEventsAcross } from '../../app/sessions/index.js';
import { listSessions } from '../../app/sessions/index.js';
import { WarrantError } from '../../core/errors.js';
import type { HostGuard } from '../../http/host-guard.js';
import { PersonPage } from '../pages/person-page.js';
import { htmlPage } from '../render.js';
import { webRoute } from '../web-request.js';

const PAGE = 25;

/** A person's page on the roster: what they caused (admin only, like the roster). */
export function registerPersonRoutes(app: Hono<any>, ctx: AppContext, guard: HostGuard): void {
  webRoute(app, ctx, guard, 'GET', '/supervisor/users/:key/caused', 'admin', async (c, r) => {
    const caller = r.identity!.caller;
    const key = c.req.param('key') ?? '';
    const user = await findRosterUser(ctx, caller, key);
    if (!user) throw new WarrantError('user-not-found', `No roster user has the key ${key}.`);
    const credentialText = c.req.query('credential');
    let credential: number | null = null;
    if (credentialText !== undefined && credentialText !== '') {
      credential = Number(credentialText);
      const owned = (await listIssuedTokens(ctx, caller, { kind: 'human', userKey: user.key })).some((t) => t.id === credential);
      if (!owned) throw new WarrantError('token-not-found', `${user.key} has no human token with credential id ${credentialText}.`);
    }
    const limitText = c.req.query('limit');
    const limit = limitText && /^[0-9]{1,3}$/.test(limitText) ? Math.min(Math.max(Number(limitText), 1), 200) : PAGE;
    const sessionsCursor = c.req.query('sessions_cursor') || null;
    const eventsCursor = c.req.query('events_cursor') || null;
    const person = `human:${user.key}`;
    const sessions = await listSessions(ctx, caller, { causedBy: person, limit, ...(sessionsCursor ? { cursor: sessionsCursor } : {}) });
    const events = await listEventsAcross(ctx, caller, {
      ...(credential !== null ? { credential } : { cause: person }),
      limit,
      ...(eventsCursor ? { cursor: eventsCursor } : {}),
    });
    return htmlPage(
      c,
      <PersonPage
        identity={r.identity!}
        csrf={r.csrf}
        data={{
          user,
          sessions: sessions.sessions,
          sessionsNext: sessions.nextCursor,
          events: events.events,
          eventsNext: events.nextCursor,
          query: { sessionsCursor, eventsCursor, credential, limit: limit === PAGE ? null : limit },
        }}
      />,
    );
  });
}
