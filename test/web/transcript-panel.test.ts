import { beforeAll, expect, it } from 'vitest';
import { SETTING_ADMIN_USER } from '../../src/app/bootstrap.js';
import { setSetting } from '../../src/store/settings-repo.js';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { liveSession } from '../helpers/lineage.js';
import { append, child, fileBytes } from '../helpers/runtimes.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/** The session page shows the transcript: the latest records, oldest first, bounded and escaped. */
describeEachDialect('web UI: the transcript on the session page', (t) => {
  let web: WebClient;
  beforeAll(async () => {
    const h = t();
    const admin = uniqueKey('admin');
    await h.human(admin, { admin: true });
    await setSetting(h.store.kysely, SETTING_ADMIN_USER, admin, new Date().toISOString());
    web = new WebClient(h);
    await web.signInWithLink();
  });

  const ids = (html: string) => [...html.matchAll(/data-record-id="(\d+)"/g)].map((m) => Number(m[1]));

  it('the latest 50 records, oldest first, one line each with the JSON opened on demand; older ones page in; text is escaped', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const lines = Array.from({ length: 62 }, (_, i) => JSON.stringify({ n: i, text: i === 61 ? '<script>alert(1)</script>' : `turn ${i}` }));
    lines.push('x'.repeat(300)); // not JSON, and longer than a line shows
    expect((await append(h, s.token, s.id, { offset: 0, lines })).status).toBe(200);

    const page = await web.get(`/sessions/${s.id}`);
    expect(page.status).toBe(200);
    const shown = ids(page.text);
    expect(shown).toHaveLength(50);
    expect([...shown].sort((a, b) => a - b)).toEqual(shown);
    expect(textOf(page.text)).toContain('The latest 50 of 63 records, oldest first');
    expect(textOf(page.text)).toContain('Older records: 13 — show 13 more');
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // pretty JSON inside a closed <details>, the one-line form in its summary
    expect(page.text).toMatch(
      /<details><summary><span class="transcript-meta">[^]*?<code class="transcript-line">\{&quot;n&quot;:13,[^<]*<\/code><\/summary><pre class="transcript-record">\{\n {2}&quot;n&quot;: 13,/,
    );
    expect(textOf(page.text)).toContain('… (100 more characters)');
    expect(page.text).toContain(`data-offset="${fileBytes(lines.slice(0, 13))}"`);

    const button = /hx-get="(\/sessions\/\d+\/transcript\?before=[^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    const older = await web.get(button, { htmx: true });
    expect(older.status).toBe(200);
    const olderIds = ids(older.text);
    expect(olderIds).toHaveLength(13);
    expect(Math.max(...olderIds)).toBeLessThan(Math.min(...shown));
    expect(older.text).not.toContain('Older records');
    // without htmx the same address is a page of its own
    const full = await web.get(button);
    expect(full.text).toContain('<html');
    expect(ids(full.text)).toEqual(olderIds);
  });

  it("a runtime child's page names the runtime that reports for it", async () => {
    const h = t();
    const parent = await liveSession(h, h.fleetKey, { provider: 'claude-code' });
    const id = (await child(h, parent.token, parent.id, { conversation_id: 'agent-page' })).body.session.id;
    const html = (await web.get(`/sessions/${id}`)).text;
    expect(html).toContain(`data-runtime-parent="${parent.id}"`);
    expect(textOf(html).replace(/ +/g, ' ')).toContain(`a subagent in the runtime of #${parent.id} , which reports for it`);
    expect(textOf((await web.get(`/sessions/${parent.id}`)).text)).not.toContain('in the runtime of');
  });

  it('a session without records says so; a forged cursor is a refusal, not a 500', async () => {
    const h = t();
    const s = await liveSession(h, h.fleetKey);
    expect(textOf((await web.get(`/sessions/${s.id}`)).text)).toContain('No transcript records');
    const forged = await web.get(`/sessions/${s.id}/transcript?before=bm9wZQ`, { htmx: true });
    expect(forged.status).toBe(400);
  });
});
