import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../src/app/caller.js';
import { changeSetting } from '../../src/app/settings.js';
import { AFFIRMATIVE_ABSENCE } from '../../src/core/human-record.js';
import { cli, listen } from '../helpers/cli.js';
import { describeEachDialect, ManualClock, uniqueKey, type Harness } from '../helpers/harness.js';
import { callTool, mcpClient } from '../helpers/mcp-client.js';
import { WebClient, textOf } from '../helpers/web-client.js';

/**
 * The agent terminal as a capture channel (docs/design/terminal-channel.md): a session whose
 * runner attached with a TTY on standard input may have been typed to, and without a witness
 * (no human token: these runs attach with the fleet key) its hierarchy has a gap and the gate
 * says `cannot-say`, never `none`, on every surface. A run a machine started (no TTY, or nothing said) adds no gap.
 */
const STARTED = '2026-12-01T10:02:00.000Z';
const sentence = (id: number, more = '') =>
  `The agent terminal of #${id} (started 2026-12-01 10:02 UTC${more}) was not witnessed: a human may have typed a request there, and nothing recorded it (no witness ran with a human token, or the run ended without its closing report). To put a request on record, start \`warrant run\` with a human token or send it with one (\`warrant follow-up\`). This check cannot be established: read it as "cannot say", never as "no human spoke".`;

describeEachDialect(
  'the agent terminal is a capture channel',
  (t) => {
    let h: Harness;
    let server: { url: string; close: () => Promise<void> };
    let env: Record<string, string>;
    let humanToken = '';
    beforeAll(async () => {
      h = t();
      // the web UI instrumented from before any of these hierarchies: without a terminal, they can answer "none"
      const key = uniqueKey('term');
      humanToken = (await h.human(key, { admin: true })).token;
      await changeSetting(h.ctx, systemCaller('cli'), 'admin_user', key);
      server = await listen(h);
      env = { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey };
    });
    afterAll(async () => {
      await server?.close();
    });

    const gate = async (id: number) => {
      const r = await h.request('GET', `/api/v1/sessions/${id}/warrant`, { token: h.fleetKey });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    it('a run with a TTY: cannot-say with the terminal gap on REST, MCP (structured and text) and the CLI (exit 5); one without a TTY, or that said nothing: none (exit 4)', async () => {
      const tty = await h.create(h.fleetKey, { title: 'typed at', attach: true, runner: { tty: true } });
      const id = tty.session.id as number;
      const machine = (await h.create(h.fleetKey, { title: 'started by a scheduler', attach: true, runner: { tty: false } })).session.id as number;
      const silent = (await h.create(h.fleetKey, { title: 'runner said nothing', attach: true })).session.id as number;

      const gap = { channel: 'terminal', kind: 'terminal-unwitnessed', session_ids: [id], started_at: STARTED, activations: [1], message: sentence(id) };
      // REST: the gate, the provenance JSON and markdown, the session payload
      expect(await gate(id)).toEqual({ session_id: id, answer: 'cannot-say', evidence: [], gaps: [gap], truncated: false, counts: { here: 0, elsewhere: 0 } });
      const prov = await h.request('GET', `/api/v1/sessions/${id}/provenance`, { token: h.fleetKey });
      expect(prov.body.human_messages.capture_gaps).toEqual([gap]);
      const md = await h.request('GET', `/api/v1/sessions/${id}/provenance?format=markdown`, { token: h.fleetKey });
      expect(md.text).toContain(`- ${sentence(id)}`);
      expect(md.text).not.toContain(AFFIRMATIVE_ABSENCE);
      const detail = await h.request('GET', `/api/v1/sessions/${id}`, { token: h.fleetKey });
      expect(detail.body.human_message_capture_gaps).toEqual([gap]);
      const warrantMd = await h.request('GET', `/api/v1/sessions/${id}/warrant?format=markdown`, { token: h.fleetKey });
      expect(warrantMd.text).toContain(`- ${sentence(id)}`);

      // MCP: check_warrant and get_session_provenance, on the fleet surface and the session's own
      const client = await mcpClient(h, h.fleetKey);
      const self = await mcpClient(h, tty.session_token, '/mcp/self');
      try {
        for (const [surface, c, args] of [
          ['/mcp', client, { session_id: id }],
          ['/mcp/self', self, {}],
        ] as const) {
          const check = await callTool(c, 'check_warrant', args);
          expect(check.data, surface).toMatchObject({ answer: 'cannot-say', gaps: [gap] });
          expect(check.text.split('\n'), surface).toEqual([
            `warrant for #${id}: cannot-say — no human message is on record, but capture could not have seen everything (see the gaps), so this is not an answer.`,
            `- ${sentence(id)}`,
          ]);
          const p = await callTool(c, 'get_session_provenance', args);
          expect(p.data.human_messages.capture_gaps, surface).toEqual([gap]);
          expect(p.text, surface).toContain(`- ${sentence(id)}`);
          expect(p.text, surface).not.toContain(AFFIRMATIVE_ABSENCE);
          const summary = await callTool(c, 'get_session', args);
          expect(summary.text, surface).toContain(sentence(id));
        }
        // positive controls, same surfaces: no TTY, and nothing said, are not candidates
        for (const other of [machine, silent]) {
          const check = await callTool(client, 'check_warrant', { session_id: other });
          expect(check.data).toMatchObject({ answer: 'none', gaps: [] });
          expect(check.text).not.toContain('agent terminal');
        }
      } finally {
        await client.close();
        await self.close();
      }

      // the CLI gate: 5 for the TTY run, 4 for the machine's
      const cannot = await cli(['check', String(id)], env);
      expect(cannot.code, cannot.stderr).toBe(5);
      expect(cannot.stdout).toContain(`warrant for #${id}: cannot-say`);
      expect(cannot.stdout).toContain(`The agent terminal of #${id} (started 2026-12-01 10:02 UTC) was not witnessed`);
      const json = await cli(['check', String(id), '--json'], env);
      expect(json.code).toBe(5);
      expect(JSON.parse(json.stdout).gaps).toEqual([gap]);
      for (const other of [machine, silent]) {
        const none = await cli(['check', String(other)], env);
        expect(none.code, none.stdout).toBe(4);
        expect(none.stdout).not.toContain('agent terminal');
      }
    });

    it('every session of the hierarchy inherits the gap — a child spawned with the session token, a sibling — and it names the TTY session; another hierarchy does not', async () => {
      const root = (await h.create(h.fleetKey, { title: 'router' })).session.id as number;
      // the plain attach route, with the runner's facts in its body
      const attached = await h.request('POST', `/api/v1/sessions/${root}/attach`, { token: h.fleetKey, body: { runner: { tty: true } } });
      expect(attached.status, attached.text).toBe(200);
      const child = (await h.create(attached.body.session_token, { title: 'worker', attach: true, runner: { tty: false } })).session.id as number;
      const grandchild = (await h.create(h.fleetKey, { title: 'grandchild', parent_session_id: child })).session.id as number;
      const sibling = (await h.create(h.fleetKey, { title: 'sibling', parent_session_id: root })).session.id as number;
      for (const id of [root, child, grandchild, sibling]) {
        const v = await gate(id);
        expect(v.answer, `#${id}`).toBe('cannot-say');
        expect(v.gaps, `#${id}`).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [root], message: sentence(root) })]);
      }
      const cannot = await cli(['check', String(grandchild)], env);
      expect(cannot.code).toBe(5);
      expect(cannot.stdout).toContain(`The agent terminal of #${root} (started`);
      // a separate hierarchy built the same way without the TTY answers none
      const otherRoot = (await h.create(h.fleetKey, { title: 'other router' })).session.id as number;
      const other = await h.request('POST', `/api/v1/sessions/${otherRoot}/attach`, { token: h.fleetKey, body: { runner: { tty: false } } });
      const otherChild = (await h.create(other.body.session_token, { title: 'other worker', attach: true })).session.id as number;
      expect((await gate(otherChild)).answer).toBe('none');
      expect((await gate(otherRoot)).answer).toBe('none');

      // a human's follow-up on the worker is on record: here, with the terminal gap still beside it
      const fu = await h.request('POST', `/api/v1/sessions/${child}/follow_up`, { token: humanToken, body: { content: 'go ahead' } });
      expect(fu.status, fu.text).toBe(201);
      const here = await gate(child);
      expect(here.answer).toBe('here');
      expect(here.gaps).toEqual([expect.objectContaining({ channel: 'terminal', session_ids: [root] })]);
    });

    it('a past run with a TTY stays a gap after re-attaches without one; runs that never had one stay clean', async () => {
      const created = await h.create(h.fleetKey, { title: 'interactive, then headless', attach: true, runner: { tty: true } });
      const id = created.session.id as number;
      const control = await h.create(h.fleetKey, { title: 'headless throughout', attach: true, runner: { tty: false } });
      const controlId = control.session.id as number;
      let tokens: Record<number, string> = { [id]: created.session_token, [controlId]: control.session_token };
      for (const body of [{ runner: { tty: false } }, undefined]) {
        for (const s of [id, controlId]) {
          const exited = await h.request('POST', `/api/v1/sessions/${s}/runtime`, { token: tokens[s]!, body: { state: 'exited', code: 0 } });
          expect(exited.status, exited.text).toBe(200);
          const again = await h.request('POST', `/api/v1/sessions/${s}/attach`, { token: h.fleetKey, ...(body ? { body } : {}) });
          expect(again.status, again.text).toBe(200);
          tokens = { ...tokens, [s]: again.body.session_token };
        }
      }
      // the agent, with its own session token, cannot attach itself again to say "no TTY"
      const own = await h.request('POST', `/api/v1/sessions/${id}/attach`, { token: tokens[id]!, body: { runner: { tty: false } } });
      expect(own.status).toBe(403);
      const v = await gate(id);
      expect(v.answer).toBe('cannot-say');
      expect(v.gaps).toEqual([
        { channel: 'terminal', kind: 'terminal-unwitnessed', session_ids: [id], started_at: STARTED, activations: [1], message: sentence(id) },
      ]);
      expect(await gate(controlId)).toMatchObject({ answer: 'none', gaps: [] });

      // two runs with a TTY: one gap for the session, both activations named
      const twice = await h.create(h.fleetKey, { title: 'interactive twice', attach: true, runner: { tty: true } });
      await h.request('POST', `/api/v1/sessions/${twice.session.id}/runtime`, { token: twice.session_token, body: { state: 'exited', code: 0 } });
      await h.request('POST', `/api/v1/sessions/${twice.session.id}/attach`, { token: h.fleetKey, body: { runner: { tty: true } } });
      expect((await gate(twice.session.id)).gaps).toEqual([
        expect.objectContaining({ session_ids: [twice.session.id], activations: [1, 2], message: sentence(twice.session.id, '; 2 runs had a terminal') }),
      ]);
    });

    it('the attached event says what the runner said; a malformed runner, or one without attach, is refused and creates nothing', async () => {
      const s = await h.create(h.fleetKey, { title: 'evented', attach: true, runner: { tty: true } });
      const events = await h.request('GET', `/api/v1/sessions/${s.session.id}/events`, { token: h.fleetKey });
      const attached = (events.body.events as { type: string; details: unknown }[]).find((e) => e.type === 'attached');
      expect(attached?.details).toEqual({ activation: 1, runner: { tty: true } });
      const plain = await h.create(h.fleetKey, { title: 'plain', attach: true });
      const plainEvents = await h.request('GET', `/api/v1/sessions/${plain.session.id}/events`, { token: h.fleetKey });
      expect((plainEvents.body.events as { type: string; details: unknown }[]).find((e) => e.type === 'attached')?.details).toEqual({ activation: 1 });

      const before = await h.request('GET', '/api/v1/sessions?limit=1', { token: h.fleetKey });
      const noAttach = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'no attach', runner: { tty: true } } });
      expect(noAttach.status).toBe(400);
      expect(noAttach.body).toMatchObject({ error: 'invalid-request', field: 'runner' });
      expect(noAttach.body.message).toMatch(/^runner: .*attach: true/);
      const bad = await h.request('POST', '/api/v1/sessions', { token: h.fleetKey, body: { title: 'bad', attach: true, runner: { tty: 'yes' } } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('invalid-request');
      const after = await h.request('GET', '/api/v1/sessions?limit=1', { token: h.fleetKey });
      expect(after.body.sessions[0].id).toBe(before.body.sessions[0].id);

      const pending = (await h.create(h.fleetKey, { title: 'pending' })).session.id as number;
      const badAttach = await h.request('POST', `/api/v1/sessions/${pending}/attach`, { token: h.fleetKey, body: { runner: {} } });
      expect(badAttach.status).toBe(400);
      const stillPending = await h.request('GET', `/api/v1/sessions/${pending}`, { token: h.fleetKey });
      expect(stillPending.body.session).toMatchObject({ status: 'pending', activation: 0 });
      expect((await gate(pending)).answer).toBe('none');
    });

    it("the web panel's amber block carries the terminal gap, and the empty state says cannot say", async () => {
      const web = new WebClient(h);
      await web.signInWithLink();
      const s = (await h.create(h.fleetKey, { title: 'typed at, in the browser', attach: true, runner: { tty: true } })).session.id as number;
      const panel = (await web.get(`/sessions/${s}/provenance_panel`)).text;
      expect(panel).toContain('class="notice warn capture-gaps"');
      expect(panel).toContain('data-gap-kind="terminal-unwitnessed" data-gap-channel="terminal"');
      expect(textOf(panel)).toContain(`The agent terminal of #${s} (started 2026-12-01 10:02 UTC) was not witnessed`);
      expect(panel).toContain('data-absence="cannot-say"');
      expect(textOf(panel)).not.toContain(AFFIRMATIVE_ABSENCE);
      const clean = (await h.create(h.fleetKey, { title: 'headless, in the browser', attach: true, runner: { tty: false } })).session.id as number;
      const cleanPanel = (await web.get(`/sessions/${clean}/provenance_panel`)).text;
      expect(cleanPanel).not.toContain('capture-gaps');
      expect(cleanPanel).toContain('data-absence="affirmative"');
    });

    it('the OpenAPI document describes runner.tty on attach and on create', async () => {
      const doc = (await h.request('GET', '/api/v1/openapi.json')).body;
      const facts = doc.components.schemas.RunnerFacts;
      expect(facts.required).toEqual(['tty']);
      expect(facts.properties.tty.description).toMatch(/standard input of the runner was a terminal/);
      expect(facts.properties.tty.description).toMatch(/cannot-say/);
      const attachBody = doc.paths['/api/v1/sessions/{ref}/attach'].post.requestBody;
      expect(attachBody.required).toBe(false);
      expect(JSON.stringify(attachBody)).toContain('AttachSession');
      expect(doc.components.schemas.AttachSession.properties.runner).toBeDefined();
      expect(doc.components.schemas.CreateSession.properties.runner).toBeDefined();
      expect(doc.components.schemas.CaptureGap.properties.kind.enum).toContain('terminal-unwitnessed');
    });
  },
  { clock: new ManualClock(Date.parse(STARTED)) },
);
