import { expect, it } from 'vitest';
import { authenticate } from '../../src/app/credentials.js';
import { listSessionEvents } from '../../src/app/sessions/read-sessions.js';
import { patchSession } from '../../src/app/sessions/patch-session.js';
import { renderEvents } from '../../src/render/attribution-markdown.js';
import { detailEntries } from '../../src/render/event-details.js';
import { describeEachDialect } from '../helpers/harness.js';

it('details show what changed, from what, to what, then the rest by name, whatever order they are stored in', () => {
  expect(detailEntries({ z: 1, new: 'b', m: 2, old: 'a', field: 'title' }).map(([k]) => k)).toEqual(['field', 'old', 'new', 'm', 'z']);
  expect(detailEntries({})).toEqual([]);
});

describeEachDialect('event details as the CLI renders them', (harness) => {
  it('a title change reads old before new, though evidence details are stored canonically (new sorts first)', async () => {
    const h = harness();
    const created = (await h.create(h.fleetKey, { title: 'before' })).session;
    const caller = await authenticate(h.ctx, h.fleetKey, 'rest', 'rest');
    await patchSession(h.ctx, caller, String(created.id), { title: 'after' });
    const { sessionId, events } = await listSessionEvents(h.ctx, caller, String(created.id), {});
    const stored = (
      await h.store.kysely
        .selectFrom('session_events')
        .select('details')
        .where('session_id', '=', sessionId)
        .where('type', '=', 'title_changed')
        .executeTakeFirstOrThrow()
    ).details;
    expect(stored).toBe('{"new":"after","old":"before"}');
    expect(renderEvents(sessionId, events, null)).toContain('title_changed** — ');
    expect(renderEvents(sessionId, events, null)).toMatch(/old="before", new="after"/);
  });
});
