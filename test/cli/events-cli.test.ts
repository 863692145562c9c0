import { expect, it, vi } from 'vitest';
import { listen, runCli } from '../helpers/cli.js';
import { causationWorld } from '../helpers/causation-fixture.js';
import { describeEachDialect } from '../helpers/harness.js';

/** `warrant events` and `warrant sessions list --caused-by` as the built binary (docs/attribution.md "What a person caused"). */
// each case runs the built binary several times; a start takes seconds on a loaded machine (a hang guard, not a performance assertion)
vi.setConfig({ testTimeout: 240_000 });

describeEachDialect('warrant events (the built binary)', (t) => {
  it('pages every act of one human token with --credential and --cursor, each once; --actor and --cause read as REST; sessions list --caused-by', async () => {
    const h = t();
    const w = await causationWorld(h);
    const created = await h.request('GET', `/api/v1/sessions/${w.router.id}/events`, { token: h.fleetKey });
    const credential = created.body.events[0].credential_id as number;
    const expected = await h.store.kysely.selectFrom('session_events').select('id').where('credential_id', '=', credential).orderBy('id', 'desc').execute();
    const server = await listen(h);
    try {
      const env = { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey };
      const seen: number[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 50; page++) {
        const r = await runCli(['events', '--credential', String(credential), '--limit', '2', '--json', ...(cursor ? ['--cursor', cursor] : [])], { env });
        expect(r.code, r.stderr).toBe(0);
        const body = JSON.parse(r.stdout) as { events: { id: number; credential_id: number }[]; next_cursor: string | null };
        for (const e of body.events) expect(e.credential_id).toBe(credential);
        seen.push(...body.events.map((e) => e.id));
        cursor = body.next_cursor;
        if (cursor === null) break;
      }
      expect(seen).toEqual(expected.map((r) => Number(r.id)));

      const text = await runCli(['events', '--actor', w.alice.key, '--cause', w.alice.key, '--limit', '1'], { env });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`## Events — actor ${w.alice.key} · cause ${w.alice.key} (newest first)`);
      expect(text.stdout).toMatch(/More: pass --cursor \S+/);
      const next = /More: pass --cursor (\S+)/.exec(text.stdout)![1]!;
      const second = await runCli(['events', '--actor', w.alice.key, '--cause', w.alice.key, '--limit', '1', '--cursor', next], { env });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).not.toEqual(text.stdout);

      const sessions = await runCli(['sessions', 'list', '--caused-by', w.alice.key, '--limit', '200', '--json'], { env });
      expect(sessions.code, sessions.stderr).toBe(0);
      expect((JSON.parse(sessions.stdout).sessions as { id: number }[]).map((s) => s.id).sort((a, b) => a - b)).toEqual(w.alices);

      const bad = await runCli(['events', '--actor', 'session:x'], { env });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('invalid-request');
    } finally {
      await server.close();
    }
  });
});
