import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SENTENCE_EVENT_TYPES, detailLabel, eventPhrase, humanise } from '../../src/web/components/event-sentences.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';
import { sent } from '../helpers/messages.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** The timeline in words (docs/attribution.md "The events"): every event type the store writes reads as a sentence. */

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The event types the code writes, read off its source: the literal passed to `w.event`, the drafts it loops over, the lifecycle decisions. */
function writtenEventTypes(): Set<string> {
  const found = new Set<string>();
  const add = (re: RegExp, text: string) => {
    for (const m of text.matchAll(re)) for (const g of m.slice(1)) if (g) found.add(g);
  };
  for (const file of filesUnder('src/app')) {
    const text = readFileSync(file, 'utf8');
    add(/\bw\.event\(\s*[^,()]+(?:\([^)]*\))?,\s*'([a-z_]+)'/g, text);
    add(/type: '([a-z_]+)',\s*details/g, text);
    add(/events\.push\(\{ type: [^,'\n]*\? '([a-z_]+)' : '([a-z_]+)'/g, text);
    add(/await onBothTimelines\([^;]*?'([a-z_]+)'/g, text);
    for (const m of text.matchAll(/CHANGE_EVENT[^=]*=\s*\{([^}]*)\}/g)) add(/: '([a-z_]+)'/g, m[1]!);
  }
  add(/event: '([a-z_]+)'/g, readFileSync('src/core/lifecycle.ts', 'utf8'));
  return found;
}

/** The event names of the documentation's table (first column). */
function documentedEventTypes(): Set<string> {
  const doc = readFileSync('docs/attribution.md', 'utf8');
  const table = doc.slice(doc.indexOf('## The events'), doc.indexOf('\n\n', doc.indexOf('| event |')));
  const names = new Set<string>();
  for (const line of table.split('\n').filter((l) => l.startsWith('| `'))) {
    // the names, not the detail keys a parenthesis mentions
    const first = line.split('|')[1]!.replace(/\([^)]*\)/g, '');
    for (const m of first.matchAll(/`([a-z_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

describe('event sentences', () => {
  it('cover every event type the code writes and the documentation lists', () => {
    const written = writtenEventTypes();
    // the scan finds the whole vocabulary, not a handful (a broken regex would pass vacuously)
    expect(written.size).toBeGreaterThanOrEqual(30);
    for (const type of ['created', 'token_minted', 'human_message', 'inbox_item_added', 'uncle_linked', 'inbox_item_withdrawn', 'starred', 'error'])
      expect(written).toContain(type);
    const covered = new Set(SENTENCE_EVENT_TYPES);
    expect([...written].filter((t) => !covered.has(t))).toEqual([]);
    expect([...documentedEventTypes()].filter((t) => !covered.has(t))).toEqual([]);
  });

  it('say every covered event in words: no snake_case, never the fallback', () => {
    for (const type of SENTENCE_EVENT_TYPES) {
      for (const details of [
        {},
        { kind: 'agent_message', reply_to: 'msg_x', mode: 'next_turn' },
        { entry_point: 'web_ui.follow_up' },
        { old: 'a', runtime_parent_id: 1 },
      ]) {
        const phrase = eventPhrase(type, details);
        expect(phrase, type).not.toMatch(/_/);
        expect(phrase, type).not.toMatch(/^recorded “/);
        expect(phrase.length, type).toBeGreaterThan(3);
      }
    }
  });

  it('name what a human did by the form it came through, and what an inbox item was', () => {
    expect(eventPhrase('human_message', { entry_point: 'web_ui.follow_up' })).toBe('asked a follow-up');
    expect(eventPhrase('human_message', { entry_point: 'cli.interrupt' })).toBe('interrupted the session with a message');
    expect(eventPhrase('human_message', { entry_point: 'web_ui.new_session' })).toBe('gave the session its prompt');
    expect(eventPhrase('token_minted', {})).toBe('minted a session token for the runtime');
    expect(eventPhrase('inbox_item_added', { kind: 'agent_message', mode: 'next_turn' })).toBe('sent this session an agent message');
    expect(eventPhrase('inbox_item_added', { kind: 'agent_message', mode: 'next_turn', reply_to: 'msg_1' })).toBe(
      'replied to this session with an agent message',
    );
    expect(eventPhrase('inbox_item_added', { kind: 'follow_up', mode: 'interrupt' })).toBe('interrupted the session through the inbox');
    expect(eventPhrase('inbox_item_sent', { kind: 'agent_message' })).toBe('sent an agent message to another session');
  });

  it('fall back to the name in words for a type they do not know', () => {
    expect(eventPhrase('frobnicated_the_widget', {})).toBe('recorded “frobnicated the widget”');
    expect(eventPhrase('toString', {})).toBe('recorded “to string”');
    expect(humanise('inbox_item-added.v2')).toBe('inbox item added v2');
    expect(detailLabel('to_session_id')).toBe('to session');
    expect(detailLabel('revoked_credential_ids')).toBe('revoked credentials');
  });
});

describeEachDialect(
  'the session page timeline',
  (t) => {
    let web: WebClient;
    let bobToken = '';
    beforeAll(async () => {
      const h = t();
      const key = uniqueKey('bob');
      bobToken = (await h.human(key, { admin: true, displayName: 'Bob Builder' })).token;
      web = new WebClient(h);
      await web.signInWithLink(key);
    });

    it('reads as sentences with linked actors and labelled values — no raw JSON, no snake_case event names', async () => {
      const h = t();
      const home = await web.post('/sessions', { prompt: 'Check the nightly build', agent_root: 'router' });
      const id = Number(/^\/sessions\/(\d+)$/.exec(home.location!)![1]);
      const page0 = await web.get(`/sessions/${id}`);
      await web.post(`/sessions/${id}/follow_up`, { content: 'and the flaky test too' }, { htmx: true });
      // a runtime attaches (token_minted carries a nested recipient object) and the session is messaged
      await h.request('POST', `/api/v1/sessions/${id}/attach`, { token: h.fleetKey, body: {} });
      const peer = await liveSession(h, bobToken, { title: 'peer' });
      await sent(h, peer.token, { to: id, payload: 'status?' });
      const page = await web.get(`/sessions/${id}`);
      expect(page0.status).toBe(200);
      const section = page.text.slice(page.text.indexOf('id="timeline"'), page.text.indexOf('</section>', page.text.indexOf('id="timeline"')));
      const text = textOf(section)
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'");
      const types = [...section.matchAll(/data-event-type="([a-z_]+)"/g)].map((m) => m[1]!);
      expect(types).toEqual(expect.arrayContaining(['created', 'human_message', 'token_minted', 'inbox_item_added']));
      expect(text).toContain('Bob Builder created this session');
      expect(text).toContain('Bob Builder asked a follow-up');
      expect(text).toContain('minted a session token for the runtime');
      expect(text).toContain(`Session #${peer.id} “peer” sent this session an agent message`);
      expect(section).toMatch(/<a class="actor actor-human" href="\/supervisor\/users\/[^"]+\/caused"/);
      expect(section).toContain(`href="/sessions/${peer.id}"`);
      // no raw JSON anywhere, and no event type or detail key as snake_case in the visible text
      expect(text).not.toContain('{"');
      expect(text).not.toContain('":');
      for (const type of types) expect(text, type).not.toContain(type.includes('_') ? type : `\u0000`);
      expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    });
  },
  { mode: 'multi-user' },
);
