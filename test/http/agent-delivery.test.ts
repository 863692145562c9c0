import { expect, it } from 'vitest';
import { settleUndeliveredWrites } from '../../src/app/inbox/agent-delivery.js';
import { promptDigest, promptLength } from '../../src/core/prompt-match.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { eventsOf, expectAttribution, fleet, onlyEvent, session, system } from '../helpers/events.js';
import { followUp, liveSession, type Live } from '../helpers/lineage.js';

/**
 * Delivery into an agent, acknowledged by the agent (docs/api.md "Delivery into the agent"):
 * written → delivered only by a matching prompt report; undelivered past the lease; resend.
 */
const clock = new ManualClock();

const lease = (h: Harness, s: Live) => h.request('POST', `/api/v1/sessions/${s.id}/inbox/lease`, { token: s.token, body: {} });
const written = (h: Harness, s: Live, ids: unknown, token = s.token) => h.request('POST', `/api/v1/sessions/${s.id}/inbox/written`, { token, body: { ids } });
const ack = (h: Harness, s: Live, ids: unknown) => h.request('POST', `/api/v1/sessions/${s.id}/inbox/ack`, { token: s.token, body: { ids } });
const list = (h: Harness, id: number, qs = '') => h.request('GET', `/api/v1/sessions/${id}/inbox${qs}`, { token: h.fleetKey });
const resend = (h: Harness, token: string, item: number, body: unknown = {}) => h.request('POST', `/api/v1/inbox/${item}/resend`, { token, body });

async function prompt(h: Harness, s: Live, text: string, token = s.token) {
  return h.request('POST', `/api/v1/sessions/${s.id}/prompts`, { token, body: { digest: await promptDigest(text), length: promptLength(text) } });
}

/** A follow-up to `s`, leased and written into its agent by its runner; returns the item id. */
async function writtenFollowUp(h: Harness, s: Live, content: string): Promise<number> {
  const f = await followUp(h, h.fleetKey, s.id, { content });
  expect(f.status).toBe(201);
  const l = await lease(h, s);
  const id = f.body.inbox_item.id as number;
  expect(l.body.items.map((i: any) => i.id)).toContain(id);
  const w = await written(h, s, [id]);
  expect(w.status).toBe(200);
  expect(w.body.written).toEqual([id]);
  return id;
}

async function stateOf(h: Harness, s: number, id: number): Promise<string> {
  const items = (await list(h, s, '?state=all')).body.items as any[];
  return items.find((i) => i.id === id)?.state;
}

async function storedState(h: Harness, id: number): Promise<string> {
  return (await h.store.kysely.selectFrom('inbox_items').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
}

describeEachDialect(
  'acknowledged delivery into an agent',
  (t) => {
    it('written → delivered only when the agent reports a prompt equal to the frame (line endings and trailing whitespace aside)', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'fix the build\nthen report');
      const item = (await list(h, s.id)).body.items[0];
      expect(item).toMatchObject({
        id,
        state: 'written',
        written_at: clock.now().toISOString(),
        written_deadline: new Date(clock.now().getTime() + 60_000).toISOString(),
        lease_expires_at: null,
      });
      // bytes typed cannot be taken back: never leased again
      expect((await lease(h, s)).body.items).toEqual([]);
      // the agent's view of the same words: CRLF and a trailing newline
      const r = await prompt(h, s, 'fix the build\r\nthen report\n');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ matched_item_id: id });
      const after = (await list(h, s.id, '?state=all')).body.items[0];
      expect(after).toMatchObject({ state: 'delivered', delivered_at: clock.now().toISOString() });
      expectAttribution(await onlyEvent(h, s.id, 'inbox_item_written'), { actor: session(s.id), actorBasis: 'authenticated', cause: fleet });
      const delivered = await onlyEvent(h, s.id, 'inbox_item_delivered');
      expectAttribution(delivered, { actor: session(s.id), actorBasis: 'authenticated', cause: fleet });
      expect(delivered.details).toMatchObject({ inbox_item_id: id, via: 'prompt_report', late: false });
    });

    it('an acknowledgement never delivers a written item (only the prompt report does); a prompt that differs matches nothing', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'exact words');
      expect((await ack(h, s, [id])).body).toEqual({ delivered: [], already_delivered: [], rejected: [{ id, reason: 'written' }] });
      expect((await prompt(h, s, 'exact words, almost')).body).toEqual({ matched_item_id: null });
      expect((await prompt(h, s, 'Exact words')).body).toEqual({ matched_item_id: null });
      // a report that claims an outcome is judged by its digest alone
      const claim = await h.request('POST', `/api/v1/sessions/${s.id}/prompts`, {
        token: s.token,
        body: { digest: await promptDigest('something else'), length: 14, outcome: 'delivered', matched_item_id: id, inbox_item_id: id },
      });
      expect(claim.body).toEqual({ matched_item_id: null });
      // the right digest with the wrong length is not the same prompt either
      const wrongLength = await h.request('POST', `/api/v1/sessions/${s.id}/prompts`, {
        token: s.token,
        body: { digest: await promptDigest('exact words'), length: 12 },
      });
      expect(wrongLength.body).toEqual({ matched_item_id: null });
      expect(await stateOf(h, s.id, id)).toBe('written');
      expect(await eventsOf(h, s.id, ['inbox_item_delivered'])).toEqual([]);
    });

    it("hostile: a report carrying the digest of another session's written item delivers nothing there or here", async () => {
      const h = t();
      const victim = await liveSession(h, h.fleetKey, { title: 'victim' });
      const forger = await liveSession(h, h.fleetKey, { title: 'forger' });
      const id = await writtenFollowUp(h, victim, 'words for the victim');
      // the forger knows the words (it may read the victim's inbox) and reports them as its own prompt
      expect((await prompt(h, forger, 'words for the victim')).body).toEqual({ matched_item_id: null });
      // and it may not report for the victim's session at all
      const foreign = await prompt(h, victim, 'words for the victim', forger.token);
      expect(foreign.status).toBe(403);
      expect(foreign.body.error).toBe('forbidden');
      expect((await written(h, victim, [id], forger.token)).status).toBe(403);
      expect(await stateOf(h, victim.id, id)).toBe('written');
      // the victim's own report still delivers it
      expect((await prompt(h, victim, 'words for the victim')).body).toEqual({ matched_item_id: id });
    });

    it('a report before the write matches nothing, and is not remembered: the write awaits its own report', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const f = await followUp(h, h.fleetKey, s.id, { content: 'early bird' });
      const id = f.body.inbox_item.id;
      expect((await prompt(h, s, 'early bird')).body).toEqual({ matched_item_id: null });
      await lease(h, s);
      expect((await prompt(h, s, 'early bird')).body).toEqual({ matched_item_id: null }); // leased is not written
      expect((await written(h, s, [id])).body.written).toEqual([id]);
      expect(await stateOf(h, s.id, id)).toBe('written');
      expect((await prompt(h, s, 'early bird')).body).toEqual({ matched_item_id: id });
    });

    it('the same digest twice delivers one item per report, oldest write first; a third report matches nothing', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const first = await writtenFollowUp(h, s, 'same words');
      clock.advance(1_000);
      const second = await writtenFollowUp(h, s, 'same words');
      const one = await writtenFollowUp(h, await liveSession(h, h.fleetKey), 'same words').catch(() => null);
      expect(one).not.toBeNull(); // another session's equal item: never a candidate here
      expect((await prompt(h, s, 'same words')).body).toEqual({ matched_item_id: first });
      expect(await stateOf(h, s.id, second)).toBe('written');
      expect((await prompt(h, s, 'same words')).body).toEqual({ matched_item_id: second });
      expect((await prompt(h, s, 'same words')).body).toEqual({ matched_item_id: null });
      expect((await eventsOf(h, s.id, ['inbox_item_delivered'])).map((e) => e.details.inbox_item_id)).toEqual([first, second]);
    });

    it('two equal reports racing for one write: exactly one delivers it', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'race me');
      const results = await Promise.all([prompt(h, s, 'race me'), prompt(h, s, 'race me'), prompt(h, s, 'race me')]);
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(results.map((r) => r.body.matched_item_id).sort()).toEqual([id, null, null].sort());
      expect((await eventsOf(h, s.id, ['inbox_item_delivered'])).length).toBe(1);
    });

    it('past the lease a written item reads undelivered; housekeeping records it; a late matching prompt still delivers it', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'slow agent');
      clock.advance(59_999);
      expect(await stateOf(h, s.id, id)).toBe('written');
      clock.advance(1);
      expect(await stateOf(h, s.id, id)).toBe('undelivered');
      expect((await list(h, s.id, '?state=undelivered')).body.items.map((i: any) => i.id)).toEqual([id]);
      expect((await list(h, s.id, '?state=written')).body.items).toEqual([]);
      expect((await list(h, s.id)).body.items.map((i: any) => i.id)).toEqual([id]); // open by default: it needs a person
      expect(await storedState(h, id)).toBe('written'); // a read changes nothing
      expect(await settleUndeliveredWrites(h.ctx)).toBeGreaterThanOrEqual(1);
      expect(await storedState(h, id)).toBe('undelivered');
      const undelivered = await onlyEvent(h, s.id, 'inbox_item_undelivered');
      expectAttribution(undelivered, { actor: system, cause: system });
      // not leased again by itself
      expect((await lease(h, s)).body.items).toEqual([]);
      clock.advance(3_600_000);
      expect((await prompt(h, s, 'slow agent')).body).toEqual({ matched_item_id: id });
      expect(await stateOf(h, s.id, id)).toBe('delivered');
      expect((await onlyEvent(h, s.id, 'inbox_item_delivered')).details.late).toBe(true);
    });

    it('resend returns an undelivered item to pending; it is leased again (as a redelivery), written and delivered', async () => {
      const h = t();
      const key = uniqueKey('resender');
      const { token } = await h.human(key);
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'try again');
      // not yet undelivered: refused
      const early = await resend(h, token, id);
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ error: 'inbox-item-not-undelivered', state: 'written' });
      clock.advance(60_000);
      const r = await resend(h, token, id);
      expect(r.status).toBe(200);
      expect(r.body.inbox_item).toMatchObject({ id, state: 'pending', written_at: null, written_deadline: null });
      // the timeline: written, undelivered (recorded on the way), resent by the human
      expect((await eventsOf(h, s.id, ['inbox_item_written', 'inbox_item_undelivered', 'inbox_item_resent'])).map((e) => e.type)).toEqual([
        'inbox_item_written',
        'inbox_item_undelivered',
        'inbox_item_resent',
      ]);
      expectAttribution(await onlyEvent(h, s.id, 'inbox_item_resent'), {
        actor: { kind: 'human', ref: key },
        actorBasis: 'authenticated',
        cause: { kind: 'human', ref: key },
      });
      const again = await resend(h, token, id);
      expect(again.status).toBe(409);
      expect(again.body.state).toBe('pending');
      // the old write's digest is gone: a report now matches nothing until it is written again
      expect((await prompt(h, s, 'try again')).body).toEqual({ matched_item_id: null });
      const l = await lease(h, s);
      expect(l.body.items.map((i: any) => [i.id, i.redelivery])).toEqual([[id, true]]);
      expect((await written(h, s, [id])).body.written).toEqual([id]);
      expect((await prompt(h, s, 'try again')).body).toEqual({ matched_item_id: id });
    });

    it('resend by someone who may not deliver is refused, and changes nothing', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'who may resend');
      clock.advance(60_000);
      // a superseded session token: s stops, and is attached again
      expect((await h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body: { state: 'exited', code: 0 } })).status).toBe(200);
      const stale = await resend(h, s.token, id);
      expect(stale.status).toBe(403);
      expect(stale.body.error).toBe('session-not-live');
      const other = await liveSession(h, h.fleetKey, { title: 'other' });
      const reattached = await h.request('POST', `/api/v1/sessions/${other.id}/attach`, { token: h.fleetKey });
      expect(reattached.status).toBe(409); // running: the old token stays live
      const superseded = await h.create(h.fleetKey, { title: 'superseded' });
      const a1 = await h.request('POST', `/api/v1/sessions/${superseded.session.id}/attach`, { token: h.fleetKey });
      await h.request('POST', `/api/v1/sessions/${superseded.session.id}/runtime`, { token: a1.body.session_token, body: { state: 'exited', code: 0 } });
      await h.request('POST', `/api/v1/sessions/${superseded.session.id}/attach`, { token: h.fleetKey });
      const old = await resend(h, a1.body.session_token, id);
      expect(old.status).toBe(403);
      expect(old.body.error).toBe('token-superseded');
      const missing = await resend(h, h.fleetKey, 987_654_321);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('inbox-item-not-found');
      expect(await storedState(h, id)).toBe('written');
      expect(await eventsOf(h, s.id, ['inbox_item_resent'])).toEqual([]);
      // the live token of another session may deliver to s, so it may resend
      expect((await resend(h, other.token, id)).status).toBe(200);
    });

    it('the OpenAPI document describes the delivery routes and every state', async () => {
      const h = t();
      const doc = (await h.request('GET', '/api/v1/openapi.json')).body;
      for (const path of ['/api/v1/sessions/{ref}/inbox/written', '/api/v1/sessions/{ref}/prompts', '/api/v1/inbox/{item_id}/resend']) {
        expect(doc.paths[path]?.post?.description, path).toEqual(expect.any(String));
      }
      expect(doc.components.schemas.InboxItem.properties.state.enum).toEqual([
        'pending',
        'leased',
        'written',
        'delivered',
        'undelivered',
        'withdrawn',
        'expired',
        'retired',
      ]);
      expect(doc.components.schemas.AttachSession.properties.delivery.enum).toEqual(['runner']);
    });

    it('an archived session takes no resend', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const id = await writtenFollowUp(h, s, 'archived later');
      clock.advance(60_000);
      await h.request('POST', `/api/v1/sessions/${s.id}/runtime`, { token: s.token, body: { state: 'exited', code: 0 } });
      expect((await h.request('POST', `/api/v1/sessions/${s.id}/archive`, { token: h.fleetKey, body: {} })).status).toBe(200);
      const r = await resend(h, h.fleetKey, id);
      expect(r.status).toBe(409);
      expect(r.body.error).toBe('target-unavailable');
    });

    it('written: only items the runner was handed; control items are never written; bad input is refused', async () => {
      const h = t();
      const s = await liveSession(h, h.fleetKey);
      const f = await followUp(h, h.fleetKey, s.id, { content: 'not leased yet' });
      const id = f.body.inbox_item.id;
      expect((await written(h, s, [id, 424_242])).body).toEqual({
        written: [],
        already_written: [],
        rejected: [
          { id, reason: 'not-leased' },
          { id: 424_242, reason: 'not-found' },
        ],
      });
      await lease(h, s);
      expect((await written(h, s, [id])).body.written).toEqual([id]);
      expect((await written(h, s, [id])).body).toEqual({ written: [], already_written: [id], rejected: [] });
      expect((await h.request('POST', `/api/v1/sessions/${s.id}/stop`, { token: h.fleetKey, body: {} })).status).toBe(200);
      const control = (await lease(h, s)).body.items.find((i: any) => i.kind === 'control');
      expect((await written(h, s, [control.id])).body.rejected).toEqual([{ id: control.id, reason: 'control' }]);
      expect((await written(h, s, 'nope')).status).toBe(400);
      for (const body of [
        { digest: 'ABC', length: 1 },
        { digest: 'g'.repeat(64), length: 1 },
        { digest: 'a'.repeat(64), length: -1 },
        { digest: 'a'.repeat(64) },
      ]) {
        const r = await h.request('POST', `/api/v1/sessions/${s.id}/prompts`, { token: s.token, body });
        expect(r.status, JSON.stringify(body)).toBe(400);
      }
    });

    it('an agent message written but not reported taken by its deadline expires; a later report does not deliver it', async () => {
      const h = t();
      const [a, b] = [await liveSession(h, h.fleetKey, { title: 'a' }), await liveSession(h, h.fleetKey, { title: 'b' })];
      const sent = await h.request('POST', '/api/v1/messages', { token: a.token, body: { to: b.id, payload: 'check the build', ttl: 120 } });
      expect(sent.status, sent.text).toBe(201);
      const leased = (await lease(h, b)).body.items;
      const item = leased.find((i: any) => i.kind === 'agent_message');
      expect((await written(h, b, [item.id])).body.written).toEqual([item.id]);
      clock.advance(121_000);
      expect((await prompt(h, b, item.frame.text)).body).toEqual({ matched_item_id: null });
      expect(await stateOf(h, b.id, item.id)).toBe('expired');
      expect((await h.request('GET', `/api/v1/messages/${sent.body.message.id}`, { token: a.token })).body.message.state).toBe('expired');
    });

    it('an agent message reported taken in time is delivered, and so is its message', async () => {
      const h = t();
      const [a, b] = [await liveSession(h, h.fleetKey, { title: 'a' }), await liveSession(h, h.fleetKey, { title: 'b' })];
      const sent = await h.request('POST', '/api/v1/messages', { token: a.token, body: { to: b.id, payload: 'ship it' } });
      const item = (await lease(h, b)).body.items.find((i: any) => i.kind === 'agent_message');
      await written(h, b, [item.id]);
      // the frame is JSON; the agent may report it with CRLF line endings
      expect((await prompt(h, b, `${item.frame.text.replace(/\n/g, '\r\n')}\r\n`)).body).toEqual({ matched_item_id: item.id });
      expect((await h.request('GET', `/api/v1/messages/${sent.body.message.id}`, { token: a.token })).body.message.state).toBe('delivered');
    });
  },
  { clock },
);

describeEachDialect(
  'resend across owners',
  (t) => {
    it('another user cannot see the item: it reads as not found, and nothing changes', async () => {
      const h = t();
      const alice = await h.human(uniqueKey('alice'));
      const mallory = await h.human(uniqueKey('mallory'));
      const mine = await h.create(alice.token, { title: 'alice', attach: true });
      const s = { id: mine.session.id, uid: mine.session.uid, token: mine.session_token };
      const id = await writtenFollowUp(h, s, 'alice only');
      clock.advance(60_000);
      const r = await resend(h, mallory.token, id);
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('inbox-item-not-found');
      expect(await storedState(h, id)).toBe('written');
      expect((await resend(h, alice.token, id)).status).toBe(200);
    });
  },
  { clock, mode: 'multi-user' },
);
