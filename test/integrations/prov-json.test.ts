import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEachDialect, uniqueKey, type Harness } from '../helpers/harness.js';
import { cli, listen } from '../helpers/cli.js';
import { followUp, liveSession } from '../helpers/lineage.js';
import { delivered, leaseAndAck, sent } from '../helpers/messages.js';

/**
 * The W3C PROV export (docs/integrations.md), checked by a PROV implementation we did not write:
 * the `prov` library from Debian's python3-prov (.ci/run installs it). It must load the document,
 * recognise the qualified types, count the records the fixture made, and round-trip it.
 */
const LOADER = join(import.meta.dirname, '../helpers/prov/load-prov.py');
const PROV_INSTALLED = spawnSync('/usr/bin/python3', ['-c', 'import prov'], { stdio: 'ignore' }).status === 0;
// like PostgreSQL: in CI the check must run (.ci/run installs python3-prov); elsewhere it says why it skipped
if (!PROV_INSTALLED && process.env.CI) throw new Error('python3-prov is not installed: apt-get install -y python3-prov');
if (!PROV_INSTALLED) console.warn('PROV export tests skipped: apt-get install -y python3-prov to run them');

interface Loaded {
  error?: string;
  counts: Record<string, number>;
  types: Record<string, { value: string; qualified: boolean; uri: string | null }[]>;
  round_trip_equal: boolean;
  provn_chars: number;
}

function loadWithProv(doc: unknown): Loaded {
  const run = spawnSync('/usr/bin/python3', [LOADER], { input: JSON.stringify(doc), encoding: 'utf8' });
  if (run.error || (run.status !== 0 && run.status !== 2))
    throw new Error(`python3-prov did not run (apt-get install -y python3-prov): ${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout) as Loaded;
}

const PROV = 'http://www.w3.org/ns/prov#';

/** The one person agent of a document. */
const person0 = (doc: any): string => Object.keys(doc.agent).find((k) => k.startsWith('human:'))!;

async function provJson(h: Harness, ref: number, token: string): Promise<any> {
  const r = await h.request('GET', `/api/v1/sessions/${ref}/provenance?format=prov-json`, { token });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe.skipIf(!PROV_INSTALLED)('W3C PROV-JSON export', () =>
  describeEachDialect('loaded by python3-prov', (t) => {
    it('a spawn tree with an uncle edge, a human message, an agent message with its reply and a deletion: types recognised, every count matches, round trip equal', async () => {
      const h = t();
      const { token } = await h.human(uniqueKey('prov'), { displayName: 'Prov Person', admin: true });
      const root = (await h.create(token, { title: 'prov root', prompt: 'secret words of the human' })).session;
      const a = await liveSession(h, h.fleetKey, { title: 'a', parent_session_id: root.id });
      const b = await liveSession(h, a.token, { title: 'b', parent_session_id: a.id }); // a spawns b itself: an authenticated parent link
      const other = await liveSession(h, h.fleetKey, { title: 'other root' });
      expect((await followUp(h, other.token, b.id)).status).toBe(201);
      const question = await delivered(h, a, b, { payload: 'is the build green?' });
      const answer = await sent(h, b.token, { reply_to: question.id, payload: 'green since 10:02' });
      await leaseAndAck(h, a);
      const doomed = (await h.create(token, { title: 'doomed', parent_session_id: root.id, prompt: 'try the other approach' })).session;
      expect((await h.request('DELETE', `/api/v1/sessions/${doomed.id}`, { token })).status).toBe(200);

      const doc = await provJson(h, b.id, h.fleetKey);
      const loaded = loadWithProv(doc);
      expect(loaded.error).toBeUndefined();
      expect(
        Object.keys(doc.agent)
          .filter((k) => !k.startsWith('agent:session-'))
          .sort(),
      ).toEqual([person0(doc), 'warrant:fleet'].sort());
      const hier = (await h.request('GET', `/api/v1/sessions/${b.id}`, { token: h.fleetKey })).body.session_hierarchy;
      const ids: number[] = hier.nodes.map((n: any) => n.id);
      expect(ids.sort((x, y) => x - y)).toEqual([root.id, a.id, b.id, other.id].sort((x, y) => x - y));

      // the types are qualified names the library resolves to PROV's own terms
      const person = Object.entries(loaded.types).find(([, v]) => v.some((x) => x.uri === `${PROV}Person`));
      expect(person, JSON.stringify(loaded.types)).toBeDefined();
      expect(doc.agent[person![0]]['prov:label']).toBe('Prov Person');
      for (const id of ids)
        expect(loaded.types[`agent:session-${id}`]).toEqual([{ value: 'prov:SoftwareAgent', qualified: true, uri: `${PROV}SoftwareAgent` }]);
      for (const v of Object.values(loaded.types)) for (const x of v) expect(x.qualified, JSON.stringify(x)).toBe(true);
      expect(loaded.types[`amsg:${question.id}`]!.map((x) => x.value)).toEqual(['warrant:AgentMessage']);

      // every record the fixture made, and nothing else
      expect(loaded.counts).toEqual({
        Activity: ids.length + 1, // the sessions and the deletion
        Agent: ids.length + 2, // each session's agent, the person, and the fleet key that started the workers
        Association: ids.length,
        Entity: 1 + 2 + 1, // the human message, the two agent messages, the deleted session
        Start: 2, // root → a → b
        Communication: 1, // other informed b (the follow-up's uncle edge)
        Delegation: ids.length, // each session's cause
        Generation: 1 + 2, // the human message, each agent message by its sender
        Usage: 1 + 2, // b's root heard the human; each delivered message used by its target
        Derivation: 1, // the reply from its original
        Attribution: 1,
        Invalidation: 1,
      });
      expect(loaded.round_trip_equal).toBe(true);
      expect(loaded.provn_chars).toBeGreaterThan(0);

      // the relations carry what the record knows: bases, senders, the reply's original
      const starts = Object.values(doc.wasStartedBy as Record<string, any>).map((s) => [s['prov:starter'], s['prov:activity'], s['warrant:basis']]);
      expect(starts.sort()).toEqual(
        [
          [`session:${root.id}`, `session:${a.id}`, 'declared'],
          [`session:${a.id}`, `session:${b.id}`, 'authenticated'],
        ].sort(),
      );
      const uncles = Object.values(doc.wasInformedBy as Record<string, any>).map((s) => [
        s['prov:informant'],
        s['prov:informed'],
        s['prov:type'].$,
        s['warrant:basis'],
      ]);
      expect(uncles).toEqual([[`session:${other.id}`, `session:${b.id}`, 'warrant:Uncle', 'authenticated']]);
      const generated = Object.values(doc.wasGeneratedBy as Record<string, any>).filter((g) => g['prov:entity'].startsWith('amsg:'));
      expect(generated.map((g) => [g['prov:entity'], g['prov:activity'], g['warrant:basis']]).sort()).toEqual(
        [
          [`amsg:${question.id}`, `session:${a.id}`, 'authenticated'],
          [`amsg:${answer.id}`, `session:${b.id}`, 'authenticated'],
        ].sort(),
      );
      expect(Object.values(doc.wasDerivedFrom)).toEqual([
        {
          'prov:generatedEntity': `amsg:${answer.id}`,
          'prov:usedEntity': `amsg:${question.id}`,
          'prov:type': { $: 'warrant:Reply', type: 'prov:QUALIFIED_NAME' },
        },
      ]);
      expect(Object.values(doc.wasInvalidatedBy)).toEqual([expect.objectContaining({ 'prov:entity': `session:${doomed.id}` })]);
      // a time is a relation's, never a bare attribute the library keeps as a string
      for (const e of Object.values(doc.entity as Record<string, any>)) expect(Object.keys(e).filter((k) => k.endsWith('AtTime'))).toEqual([]);
      // digests and envelopes, never anyone's words
      for (const words of ['secret words of the human', 'is the build green?', 'green since 10:02']) expect(JSON.stringify(doc)).not.toContain(words);
    });

    it('the library refuses a broken document (the check has teeth); a withdrawal is an invalidation; the CLI prints the same document', async () => {
      const h = t();
      expect(loadWithProv({ prefix: {}, sessions: { x: {} } }).error).toMatch(/KeyError|sessions/);
      expect(loadWithProv({ prefix: {}, activity: { 'session:1': { 'prov:startTime': 'yesterday' } } }).error).toBeDefined();
      const plain = loadWithProv({ prefix: { ex: 'urn:example:' }, agent: { 'ex:p': { 'prov:type': 'prov:Person' } } });
      expect(plain.types['ex:p']).toEqual([{ value: 'prov:Person', qualified: false, uri: null }]);

      const { token } = await h.human(uniqueKey('provw'), { admin: true });
      const root = (await h.create(token, { title: 'withdrawn ask' })).session;
      const queued = await h.request('POST', `/api/v1/sessions/${root.id}/enqueued_messages`, { token, body: { content: 'actually, never mind' } });
      expect(queued.status, queued.text).toBe(201);
      const withdrawn = await h.request('DELETE', `/api/v1/sessions/${root.id}/enqueued_messages/${queued.body.inbox_item.id}`, { token });
      expect(withdrawn.status, withdrawn.text).toBe(200);
      const doc = await provJson(h, root.id, h.fleetKey);
      const loaded = loadWithProv(doc);
      expect(loaded.counts.Invalidation).toBe(1);
      const inv = Object.values(doc.wasInvalidatedBy as Record<string, any>)[0];
      expect(inv['prov:entity']).toMatch(/^msg:/);
      expect(doc.activity[inv['prov:activity']]['prov:type']).toEqual({ $: 'warrant:Withdrawal', type: 'prov:QUALIFIED_NAME' });

      const server = await listen(h);
      try {
        const printed = await cli(['provenance', String(root.id), '--format', 'prov-json'], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
        expect(printed.code).toBe(0);
        expect(JSON.parse(printed.stdout)).toEqual(doc);
      } finally {
        await server.close();
      }
    });
  }),
);
