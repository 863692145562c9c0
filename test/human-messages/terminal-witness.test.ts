import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportToOtlp } from '../../src/integrations/otel-export.js';
import { WebClient } from '../helpers/web-client.js';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { promptFingerprint } from '../../src/core/prompt-match.js';
import { TERMINAL_MATCH_GRACE_MS, WITNESS_SILENCE_MS } from '../../src/core/terminal-witness.js';
import { cli, listen } from '../helpers/cli.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { ROUTE_CATALOG } from '../helpers/route-catalog.js';

/**
 * The terminal witness, server side (docs/design/terminal-channel.md), driven over REST the
 * way the runner drives it: a human token mints the witness credential; the witness reports
 * turns; the agent's hook reports prompts with the session token; the witness records the
 * prompt only on an exact match of both; the close ends the run. The agent's own session
 * token can forge none of it, and the witness credential can do nothing else.
 */
const clock = new ManualClock(Date.parse('2026-12-01T10:02:00.000Z'));

describeEachDialect(
  'the terminal witness',
  (t) => {
    let h: Harness;
    let human = '';
    let otherHuman = '';
    let server: { url: string; close: () => Promise<void> };
    beforeAll(async () => {
      h = t();
      human = (await h.human(uniqueKey('typist'), { displayName: 'Tess Typist' })).token;
      // the web UI instrumented throughout: without a terminal gap these hierarchies can answer "none"
      const admin = uniqueKey('admin');
      await h.human(admin, { admin: true });
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', admin);
      otherHuman = (await h.human(uniqueKey('other'))).token;
      server = await listen(h);
    });
    afterAll(async () => {
      await server?.close();
    });

    /** A session attached with a TTY by the human's runner, and its witness credential. */
    const run = async (options: { witness?: boolean } = {}) => {
      const created = await h.create(human, { title: 'typed at', attach: true, runner: { tty: true } });
      const id = created.session.id as number;
      let witness = '';
      if (options.witness ?? true) {
        const minted = await h.request('POST', `/api/v1/sessions/${id}/witness`, { token: human });
        expect(minted.status, minted.text).toBe(201);
        expect(minted.body).toEqual({ witness_token: expect.stringMatching(/^wrt_t_[A-Za-z0-9_-]{16,}$/), session_id: id, activation: 1 });
        witness = minted.body.witness_token;
      }
      return { id, sessionToken: created.session_token as string, witness };
    };
    const turn = async (id: number, witness: string, text: string, extra: { reliable?: boolean; pasted?: boolean } = {}) => {
      const f = await promptFingerprint(text);
      const r = await h.request('POST', `/api/v1/sessions/${id}/terminal/turns`, {
        token: witness,
        body: { ...f, reliable: extra.reliable ?? true, pasted: extra.pasted ?? false },
      });
      expect(r.status, r.text).toBe(201);
      return r.body.turn_id as number;
    };
    const report = async (id: number, sessionToken: string, text: string) => {
      const r = await h.request('POST', `/api/v1/sessions/${id}/prompts`, { token: sessionToken, body: await promptFingerprint(text) });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    const witnessed = (id: number, witness: string, turnId: number, text: string, isolation = 'same-uid') =>
      h.request('POST', `/api/v1/sessions/${id}/terminal/prompts`, {
        token: witness,
        body: { turn_id: turnId, text, pasted: false, witness_isolation: isolation },
      });
    const close = (id: number, witness: string, turns: number) =>
      h.request('POST', `/api/v1/sessions/${id}/terminal/close`, { token: witness, body: { turns } });
    const gate = async (id: number) => {
      const r = await h.request('GET', `/api/v1/sessions/${id}/warrant`, { token: h.fleetKey });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };
    const humanMessages = async (id: number) => {
      const r = await h.request('GET', `/api/v1/sessions/${id}/provenance`, { token: h.fleetKey });
      expect(r.status, r.text).toBe(200);
      return r.body.human_messages.entries as any[];
    };
    const pastGrace = () => clock.advance(TERMINAL_MATCH_GRACE_MS);

    it("typed words, reported by the agent and the runner, become exactly one cli.terminal_prompt with the runner's text and witness_isolation; the gate says here (exit 0)", async () => {
      const r = await run();
      const text = 'Check the deploy, please.';
      const turnId = await turn(r.id, r.witness, text);
      expect(await report(r.id, r.sessionToken, 'Check the deploy, please.\r\n')).toEqual({ matched_item_id: null });
      const recorded = await witnessed(r.id, r.witness, turnId, text, 'other-uid');
      expect(recorded.status, recorded.text).toBe(201);
      expect(recorded.body.human_message).toMatchObject({
        session_id: r.id,
        scope: 'here',
        channel: 'cli',
        entry_point: 'cli.terminal_prompt',
        content: text,
        witness_isolation: 'other-uid',
        author: { display_name: 'Tess Typist' },
      });
      const closed = await close(r.id, r.witness, 1);
      expect(closed.status, closed.text).toBe(200);
      expect(closed.body).toEqual({ closed: true });
      pastGrace();
      const v = await gate(r.id);
      expect(v.answer).toBe('here');
      expect(v.gaps).toEqual([]);
      expect(v.evidence).toEqual([recorded.body.human_message.id]);
      expect(await humanMessages(r.id)).toEqual([recorded.body.human_message]);
      const md = await h.request('GET', `/api/v1/sessions/${r.id}/provenance?format=markdown`, { token: h.fleetKey });
      expect(md.text).toContain('cli.terminal_prompt');
      expect(md.text).toContain('witness_isolation: other-uid (the agent ran as another OS user)');
      // the CLI gate, against a real server
      const here = await cli(['check', String(r.id)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(here.code, here.stderr).toBe(0);
      expect(here.stdout).toContain(`warrant for #${r.id}: here`);
      expect(here.stdout).toContain(`human message ${recorded.body.human_message.id} (witnessed at the agent terminal; witness_isolation: other-uid`);
      expect(v.witnessed_evidence).toEqual([{ human_message_id: recorded.body.human_message.id, witness_isolation: 'other-uid' }]);
      const provCli = await cli(['provenance', String(r.id)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(provCli.code, provCli.stderr).toBe(0);
      expect(provCli.stdout).toContain('cli.terminal_prompt');
      expect(provCli.stdout).toContain('witness_isolation: other-uid');
      // PROV export and the web panel carry it too
      const provJson = await h.request('GET', `/api/v1/sessions/${r.id}/provenance?format=prov-json`, { token: h.fleetKey });
      expect(provJson.body.entity[`msg:${recorded.body.human_message.id}`]).toMatchObject({
        'warrant:entry_point': 'cli.terminal_prompt',
        'warrant:witness_isolation': 'other-uid',
      });
      const web = new WebClient(h);
      await web.signInWithLink();
      const panel = (await web.get(`/sessions/${r.id}/provenance_panel`)).text;
      expect(panel).toContain('data-witness-isolation="other-uid"');
      expect(panel).toContain('data-entry-point="cli.terminal_prompt"');
      expect(panel).not.toContain('capture-gaps');
      // OpenTelemetry: the human-message event's attribute
      const spans: any[] = [];
      const collector = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          if (req.url === '/v1/traces') spans.push(...JSON.parse(body).resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', () => resolve()));
      try {
        await exportToOtlp(h.ctx, { endpoint: `http://127.0.0.1:${(collector.address() as { port: number }).port}`, sessionIds: [r.id] });
      } finally {
        collector.close();
      }
      const event = spans.flatMap((sp) => sp.events).find((e: any) => e.name === 'warrant.human_message');
      expect(Object.fromEntries(event.attributes.map((a: any) => [a.key, a.value.stringValue ?? a.value.intValue]))).toMatchObject({
        'warrant.entry_point': 'cli.terminal_prompt',
        'warrant.witness_isolation': 'other-uid',
      });
      // the closing report revoked the credential: a second close is a bad token
      const again = await close(r.id, r.witness, 1);
      expect(again.status).toBe(401);
      expect(again.body.error).toBe('invalid-token');
      // MCP shows the isolation too, structured and in text
      const client = await mcpClient(h, h.fleetKey);
      try {
        const check = await callTool(client, 'check_warrant', { session_id: r.id });
        expect(check.data).toMatchObject({ answer: 'here', gaps: [] });
        const prov = await callTool(client, 'get_session_provenance', { session_id: r.id });
        expect(prov.data.human_messages.entries[0]).toMatchObject({ entry_point: 'cli.terminal_prompt', witness_isolation: 'other-uid' });
        expect(prov.text).toContain('witness_isolation: other-uid');
      } finally {
        await client.close();
      }
    });

    it('a turn nobody reported, or a report no turn matches, is a gap naming the session and the time (cannot-say, exit 5, never none); inside the grace it already is one, marked pending', async () => {
      const typed = await run();
      await turn(typed.id, typed.witness, 'typed but never taken');
      const turnedAt = clock.now().toISOString();
      // inside the grace the match may still come, but the gate must not answer none meanwhile
      const young = await gate(typed.id);
      expect(young.answer).toBe('cannot-say');
      expect(young.gaps).toEqual([
        expect.objectContaining({
          channel: 'terminal',
          unmatched_at: turnedAt,
          match_pending: true,
          message: expect.stringContaining(
            `A prompt typed at the agent terminal of #${typed.id} (${turnedAt.slice(0, 10)} ${turnedAt.slice(11, 16)} UTC) is not matched yet`,
          ),
        }),
      ]);
      pastGrace();
      const v = await gate(typed.id);
      expect(v.answer).toBe('cannot-say');
      expect(v.gaps[0].match_pending).toBeUndefined();
      expect(v.gaps).toEqual([
        expect.objectContaining({
          channel: 'terminal',
          kind: 'terminal-unwitnessed',
          session_ids: [typed.id],
          unmatched_at: turnedAt,
          message: expect.stringContaining(
            `A prompt typed at the agent terminal of #${typed.id} (${turnedAt.slice(0, 10)} ${turnedAt.slice(11, 16)} UTC) was not witnessed`,
          ),
        }),
      ]);
      const code = await cli(['check', String(typed.id)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(code.code, code.stdout).toBe(5);
      expect(code.stdout).toContain(`A prompt typed at the agent terminal of #${typed.id}`);

      // the agent's report alone, words nobody typed (its own session token): no record, a gap
      const forged = await run();
      await report(forged.id, forged.sessionToken, 'deploy to production now');
      pastGrace();
      expect(await humanMessages(forged.id)).toEqual([]);
      const f = await gate(forged.id);
      expect(f.answer).toBe('cannot-say');
      expect(f.gaps[0]).toMatchObject({ channel: 'terminal', unmatched_at: expect.any(String) });
    });

    it('a live run is witnessed only while its runner is heard from: a runner killed before its closing report (silent for 45 s) leaves a gap; its heartbeat keeps the run clean', async () => {
      const quiet = await run();
      const beating = await run();
      const terminalGaps = async (id: number) => ((await gate(id)).gaps as any[]).filter((g) => g.channel === 'terminal');
      expect(await terminalGaps(quiet.id)).toEqual([]);
      clock.advance(WITNESS_SILENCE_MS - 5_000);
      const alive = await h.request('POST', `/api/v1/sessions/${beating.id}/terminal/alive`, { token: beating.witness });
      expect(alive.status, alive.text).toBe(200);
      expect(alive.body).toEqual({ alive: true });
      clock.advance(10_000);
      // the one that kept beating is clean; the silent one (its runner was SIGKILLed, its session still running) is a gap
      expect(await terminalGaps(beating.id)).toEqual([]);
      expect(await terminalGaps(quiet.id)).toHaveLength(1);
      expect((await gate(quiet.id)).answer).toBe('cannot-say');
      // only the run's own witness may beat for it: the agent's session token is refused, and so is another run's witness
      expect((await h.request('POST', `/api/v1/sessions/${quiet.id}/terminal/alive`, { token: quiet.sessionToken })).status).toBe(403);
      expect((await h.request('POST', `/api/v1/sessions/${quiet.id}/terminal/alive`, { token: beating.witness })).status).toBe(403);
      // a closed run needs no heartbeat
      expect((await close(beating.id, beating.witness, 0)).status).toBe(200);
      clock.advance(10 * WITNESS_SILENCE_MS);
      expect(await terminalGaps(beating.id)).toEqual([]);
    });

    it("hostile: the agent's own session token cannot report turns, witnessed prompts or the close, mint a witness, or record a --prompt", async () => {
      const r = await run();
      const f = await promptFingerprint('rm -rf /');
      for (const [path, body] of [
        ['terminal/turns', { ...f, reliable: true, pasted: false }],
        ['terminal/prompts', { turn_id: 1, text: 'rm -rf /', pasted: false, witness_isolation: 'other-uid' }],
        ['terminal/close', { turns: 0 }],
      ] as const) {
        for (const token of [r.sessionToken, h.fleetKey, human]) {
          const res = await h.request('POST', `/api/v1/sessions/${r.id}/${path}`, { token, body });
          expect(res.status, `${path}: ${res.text}`).toBe(403);
          expect(res.body.error).toBe('witness-credential-scope');
        }
      }
      for (const token of [r.sessionToken, h.fleetKey, r.witness]) {
        const mint = await h.request('POST', `/api/v1/sessions/${r.id}/witness`, { token });
        expect(mint.status, mint.text).toBe(403);
        expect(mint.body.error).toBe(token === r.witness ? 'witness-credential-scope' : 'witness-needs-human-token');
        const rp = await h.request('POST', `/api/v1/sessions/${r.id}/run-prompt`, { token, body: { text: 'rm -rf /' } });
        expect(rp.status, rp.text).toBe(403);
        expect(rp.body.error).toBe(token === r.witness ? 'witness-credential-scope' : 'witness-needs-human-token');
      }
      expect(await humanMessages(r.id)).toEqual([]);
    });

    it("hostile: the witness credential is refused by every other route and MCP surface; another session's terminal is out of its scope", async () => {
      const r = await run();
      const other = await run();
      const target = (await h.create(h.fleetKey, { title: 'someone else' })).session.id as number;
      const checked: string[] = [];
      for (const entry of ROUTE_CATALOG) {
        if (entry.covers.includes('/terminal/') || entry.covers.endsWith('/witness')) continue;
        const res = await entry.call(h, r.witness, target);
        expect(res, entry.name).toEqual({ status: 403, error: 'witness-credential-scope' });
        checked.push(entry.name);
      }
      expect(checked.length).toBeGreaterThan(30);
      // reports for another session's run, with a valid ref: out of scope, never "not found"
      for (const ref of [String(other.id), '999999']) {
        const res = await h.request('POST', `/api/v1/sessions/${ref}/terminal/turns`, {
          token: r.witness,
          body: { ...(await promptFingerprint('x')), reliable: true, pasted: false },
        });
        expect(res.status, res.text).toBe(403);
        expect(res.body.error).toBe('witness-credential-scope');
      }
    });

    it('hostile: a forged report matched to no turn records nothing; text that differs from the turn is refused; a consumed turn records nothing twice; an unreliable turn never records', async () => {
      const r = await run();
      const typed = 'list the open incidents';
      const turnId = await turn(r.id, r.witness, typed);
      // the agent reports different words: the runner's text is refused either way
      await report(r.id, r.sessionToken, 'drop the incidents table');
      const forgedText = await witnessed(r.id, r.witness, turnId, 'drop the incidents table');
      expect(forgedText.status).toBe(409);
      expect(forgedText.body.error).toBe('terminal-turn-mismatch');
      const noReport = await witnessed(r.id, r.witness, turnId, typed);
      expect(noReport.status).toBe(409);
      expect(noReport.body.error).toBe('prompt-report-missing');
      expect(await humanMessages(r.id)).toEqual([]);

      // the real report arrives: one record; the same words again record nothing
      await report(r.id, r.sessionToken, typed);
      expect((await witnessed(r.id, r.witness, turnId, typed)).status).toBe(201);
      await report(r.id, r.sessionToken, typed);
      const twice = await witnessed(r.id, r.witness, turnId, typed);
      expect(twice.status).toBe(409);
      expect(twice.body.error).toBe('terminal-turn-consumed');
      expect(await humanMessages(r.id)).toHaveLength(1);

      // an edited turn (cursor keys): never witnessed, even with an equal report
      const edited = await turn(r.id, r.witness, 'restart the workers', { reliable: false });
      await report(r.id, r.sessionToken, 'restart the workers');
      const unreliable = await witnessed(r.id, r.witness, edited, 'restart the workers');
      expect(unreliable.status).toBe(409);
      expect(unreliable.body.error).toBe('terminal-turn-unreliable');
      const missing = await witnessed(r.id, r.witness, 987654, typed);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('terminal-turn-not-found');
      expect(await humanMessages(r.id)).toHaveLength(1);
      expect((await close(r.id, r.witness, 3)).status).toBe(200);
      pastGrace();
      // here (one witnessed record), with the gap of what was not witnessed beside it
      const v = await gate(r.id);
      expect(v.answer).toBe('here');
      expect(v.gaps).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [r.id], unmatched_at: expect.any(String) })]);
    });

    it('the close: a count that differs from the turns recorded is a gap; a run that ended without it is a gap; a live run without it yet is not', async () => {
      const live = await run();
      const t1 = await turn(live.id, live.witness, 'one');
      await report(live.id, live.sessionToken, 'one');
      expect((await witnessed(live.id, live.witness, t1, 'one')).status).toBe(201);
      pastGrace();
      expect((await gate(live.id)).gaps).toEqual([]);
      // the runner dies: the session is reported failed without a close
      const died = await h.request('POST', `/api/v1/sessions/${live.id}/runtime`, { token: live.sessionToken, body: { state: 'error', reason: 'killed' } });
      expect(died.status, died.text).toBe(200);
      const v = await gate(live.id);
      expect(v.answer).toBe('here');
      expect(v.gaps).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [live.id] })]);
      expect(v.gaps[0].unmatched_at).toBeUndefined();
      // and its witness was revoked with it
      expect((await close(live.id, live.witness, 1)).status).toBe(401);

      const miscounted = await run();
      expect((await close(miscounted.id, miscounted.witness, 2)).status).toBe(200);
      expect((await gate(miscounted.id)).answer).toBe('cannot-say');

      const clean = await run();
      expect((await close(clean.id, clean.witness, 0)).status).toBe(200);
      await h.request('POST', `/api/v1/sessions/${clean.id}/runtime`, { token: clean.sessionToken, body: { state: 'exited', code: 0 } });
      const c = await gate(clean.id);
      expect(c.gaps).toEqual([]);
      expect(c.answer).toBe('none');
    });

    it("revocation: minting again revokes the earlier credential; a new attach and a reported exit revoke the run's; a fresh credential for a closed run is refused", async () => {
      const r = await run();
      const second = await h.request('POST', `/api/v1/sessions/${r.id}/witness`, { token: human });
      expect(second.status).toBe(201);
      const old = await h.request('POST', `/api/v1/sessions/${r.id}/terminal/turns`, {
        token: r.witness,
        body: { ...(await promptFingerprint('x')), reliable: true, pasted: false },
      });
      expect(old.status).toBe(401);
      expect(old.body.error).toBe('invalid-token');
      expect((await close(r.id, second.body.witness_token, 0)).status).toBe(200);
      const third = await h.request('POST', `/api/v1/sessions/${r.id}/witness`, { token: human });
      const afterClose = await close(r.id, third.body.witness_token, 0);
      expect(afterClose.status).toBe(409);
      expect(afterClose.body.error).toBe('terminal-already-closed');

      const exited = await run();
      await h.request('POST', `/api/v1/sessions/${exited.id}/runtime`, { token: exited.sessionToken, body: { state: 'exited', code: 0 } });
      expect((await close(exited.id, exited.witness, 0)).status).toBe(401);
      // not attached any more: no witness for it
      const late = await h.request('POST', `/api/v1/sessions/${exited.id}/witness`, { token: human });
      expect(late.status).toBe(409);
      expect(late.body.error).toBe('session-not-attached');

      // attached again: a witness for the new activation; the earlier run, ended without its close, stays a gap
      const again = await h.request('POST', `/api/v1/sessions/${exited.id}/attach`, { token: human, body: { runner: { tty: true } } });
      expect(again.status, again.text).toBe(200);
      const next = await h.request('POST', `/api/v1/sessions/${exited.id}/witness`, { token: human });
      expect(next.body).toMatchObject({ session_id: exited.id, activation: 2 });
      expect((await close(exited.id, next.body.witness_token, 0)).status).toBe(200);
      const v = await gate(exited.id);
      expect(v.answer).toBe('cannot-say');
      expect(v.gaps).toEqual([expect.objectContaining({ channel: 'terminal', activations: [1] })]);
    });

    it('invalid input is refused with the field named: digest pattern, integer bounds, the isolation enum, unknown fields', async () => {
      const r = await run();
      const good = await promptFingerprint('ok');
      for (const body of [
        { ...good, digest: 'ABC', reliable: true, pasted: false },
        { ...good, digest: good.digest.toUpperCase(), reliable: true, pasted: false },
        { ...good, length: 0, reliable: true, pasted: false },
        { ...good, length: 1.5, reliable: true, pasted: false },
        { ...good, reliable: 'yes', pasted: false },
        { ...good, reliable: true, pasted: false, words: 'ok' },
      ]) {
        const res = await h.request('POST', `/api/v1/sessions/${r.id}/terminal/turns`, { token: r.witness, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error).toBe('invalid-request');
      }
      const turnId = await turn(r.id, r.witness, 'ok');
      for (const body of [
        { turn_id: turnId, text: 'ok', pasted: false, witness_isolation: 'root' },
        { turn_id: 0, text: 'ok', pasted: false, witness_isolation: 'same-uid' },
        { turn_id: turnId, text: '', pasted: false, witness_isolation: 'same-uid' },
      ]) {
        const res = await h.request('POST', `/api/v1/sessions/${r.id}/terminal/prompts`, { token: r.witness, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const blank = await h.request('POST', `/api/v1/sessions/${r.id}/terminal/prompts`, {
        token: r.witness,
        body: { turn_id: turnId, text: ' \r\n', pasted: false, witness_isolation: 'same-uid' },
      });
      expect(blank.status).toBe(400);
      expect((await close(r.id, r.witness, -1)).status).toBe(400);
      const rp = await h.request('POST', `/api/v1/sessions/${r.id}/run-prompt`, { token: human, body: { text: '  \n' } });
      expect(rp.status).toBe(400);
      expect(rp.body.field).toBe('text');
    });

    it('--prompt: run-prompt records cli.run_prompt; the first report equal to it needs no second record; a different first report is a gap', async () => {
      const text = 'Check the deploy, please.';
      const r = await run();
      const recorded = await h.request('POST', `/api/v1/sessions/${r.id}/run-prompt`, { token: human, body: { text } });
      expect(recorded.status, recorded.text).toBe(201);
      expect(recorded.body.human_message).toMatchObject({ entry_point: 'cli.run_prompt', channel: 'cli', content: text, witness_isolation: null });
      const dup = await h.request('POST', `/api/v1/sessions/${r.id}/run-prompt`, { token: human, body: { text } });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toBe('run-prompt-exists');
      await report(r.id, r.sessionToken, text + '\n');
      expect((await close(r.id, r.witness, 0)).status).toBe(200);
      pastGrace();
      expect(await humanMessages(r.id)).toHaveLength(1);
      const v = await gate(r.id);
      expect(v.answer).toBe('here');
      expect(v.gaps).toEqual([]);
      const ok = await cli(['check', String(r.id)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(ok.code).toBe(0);

      const differs = await run();
      expect((await h.request('POST', `/api/v1/sessions/${differs.id}/run-prompt`, { token: human, body: { text } })).status).toBe(201);
      await report(differs.id, differs.sessionToken, 'something else entirely');
      // the same text reported second is not the first report: it matches nothing either
      await report(differs.id, differs.sessionToken, text);
      expect((await close(differs.id, differs.witness, 0)).status).toBe(200);
      pastGrace();
      const d = await gate(differs.id);
      expect(d.answer).toBe('here');
      expect(d.gaps).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [differs.id], unmatched_at: expect.any(String) })]);

      // without a human token there is no --prompt; another person's token may act only where they may
      const notAttached = (await h.create(human, { title: 'not attached' })).session.id as number;
      const na = await h.request('POST', `/api/v1/sessions/${notAttached}/run-prompt`, { token: otherHuman, body: { text } });
      expect(na.status).toBe(409);
      expect(na.body.error).toBe('session-not-attached');
    });

    it('loaded: racing witnessed prompts for one turn record exactly one message; a busy run of many turns, each witnessed, is witnessed', async () => {
      const r = await run();
      const text = 'only once';
      const turnId = await turn(r.id, r.witness, text);
      for (let i = 0; i < 4; i++) await report(r.id, r.sessionToken, text);
      const results = await Promise.all(Array.from({ length: 6 }, () => witnessed(r.id, r.witness, turnId, text)));
      expect(results.filter((x) => x.status === 201)).toHaveLength(1);
      for (const x of results.filter((y) => y.status !== 201)) expect(x.body.error, x.text).toBe('terminal-turn-consumed');
      expect(await humanMessages(r.id)).toHaveLength(1);

      const busy = await run();
      const n = 40;
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          const words = `turn number ${i}`;
          const id = await turn(busy.id, busy.witness, words);
          await report(busy.id, busy.sessionToken, words);
          const rec = await witnessed(busy.id, busy.witness, id, words);
          expect(rec.status, rec.text).toBe(201);
        }),
      );
      expect((await close(busy.id, busy.witness, n)).status).toBe(200);
      pastGrace();
      const prov = await h.request('GET', `/api/v1/sessions/${busy.id}/provenance`, { token: h.fleetKey });
      expect(prov.body.human_messages.counts.here).toBe(n);
      expect(await gate(busy.id)).toMatchObject({ answer: 'here', gaps: [] });
    });

    it('the OpenAPI document describes the new routes with their validation: digest pattern, integer bounds, the isolation enum', async () => {
      const doc = (await h.request('GET', '/api/v1/openapi.json')).body;
      for (const path of ['witness', 'terminal/turns', 'terminal/prompts', 'terminal/close', 'run-prompt'])
        expect(doc.paths[`/api/v1/sessions/{ref}/${path}`]?.post, path).toBeDefined();
      const turn = doc.components.schemas.TerminalTurn;
      expect(turn.properties.digest.pattern).toBe('^[0-9a-f]{64}$');
      expect(turn.properties.length.minimum).toBe(1);
      expect(turn.required.sort()).toEqual(['digest', 'length', 'pasted', 'reliable']);
      expect(turn.additionalProperties).toBe(false);
      expect(doc.components.schemas.WitnessedPrompt.properties.witness_isolation.enum).toEqual(['same-uid', 'other-uid']);
      expect(doc.components.schemas.TerminalClose.properties.turns.minimum).toBe(0);
      expect(doc.components.schemas.HumanMessage.properties.witness_isolation).toBeDefined();
      expect(doc.components.schemas.CaptureGap.properties.unmatched_at).toBeDefined();
    });

    it('no human token: a TTY run without a witness stays a gap (cannot-say, exit 5) however its reports look', async () => {
      const r = await run({ witness: false });
      await report(r.id, r.sessionToken, 'hello');
      pastGrace();
      const v = await gate(r.id);
      expect(v.answer).toBe('cannot-say');
      expect(v.gaps).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [r.id] })]);
      const code = await cli(['check', String(r.id)], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(code.code).toBe(5);
    });
  },
  { clock },
);
