import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { cli, listen } from '../helpers/cli.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/prov-json.schema.json'), 'utf8'));
const validate = new (Ajv as unknown as typeof Ajv.default)({ allErrors: true, strict: false }).compile(schema);

describeEachDialect('W3C PROV-JSON export (docs/integrations.md)', (t) => {
  it('validates against the PROV-JSON schema and round-trips the hierarchy: same sessions, same spawn and uncle edges', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('prov'), { displayName: 'Prov Person' });
    const root = (await h.create(token, { title: 'prov root', prompt: 'secret words of the human' })).session;
    const a = (await h.create(h.fleetKey, { title: 'a', parent_session_id: root.id })).session;
    const b = (await h.create(h.fleetKey, { title: 'b', parent_session_id: a.id })).session;
    const other = (await h.create(h.fleetKey, { title: 'other root' })).session;
    await h.store.kysely
      .insertInto('session_uncles')
      .values({ session_id: b.id, uncle_session_id: other.id, source: 'rest.follow_up', basis: 'declared', recorded_by_actor_id: null, created_at: new Date().toISOString() })
      .execute();
    const r = await h.request('GET', `/api/v1/sessions/${b.id}/provenance?format=prov-json`, { token: h.fleetKey });
    expect(r.status).toBe(200);
    const doc = r.body;
    const ok = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    // the schema has teeth: a broken relation, a bad time or an unknown section fails it
    expect(validate({ ...doc, wasInformedBy: { x: { 'prov:informed': 'session:1' } } })).toBe(false);
    expect(validate({ ...doc, activity: { 'session:1': { 'prov:startTime': 'yesterday' } } })).toBe(false);
    expect(validate({ ...doc, sessions: {} })).toBe(false);

    const hier = (await h.request('GET', `/api/v1/sessions/${b.id}`, { token: h.fleetKey })).body.session_hierarchy;
    const sessionsInDoc = Object.keys(doc.activity).filter((k) => k.startsWith('session:')).map((k) => Number(k.slice(8))).sort((x, y) => x - y);
    expect(sessionsInDoc).toEqual(hier.nodes.map((n: any) => n.id).sort((x: number, y: number) => x - y));
    const spawnsInDoc = Object.values(doc.wasStartedBy as Record<string, any>).map((s) => [Number(s['prov:starter'].slice(8)), Number(s['prov:activity'].slice(8))]).sort();
    expect(spawnsInDoc).toEqual([[root.id, a.id], [a.id, b.id]].sort());
    const unclesInDoc = Object.values(doc.wasInformedBy as Record<string, any>).map((s) => [Number(s['prov:informant'].slice(8)), Number(s['prov:informed'].slice(8)), s['prov:type'], s['warrant:basis']]);
    expect(unclesInDoc).toEqual([[other.id, b.id, 'warrant:uncle', 'declared']]);
    // the cause, the association and the human message attributed to the person
    expect(Object.values(doc.actedOnBehalfOf as Record<string, any>).find((d) => d['prov:activity'] === `session:${root.id}`)['prov:responsible']).toMatch(/^human:/);
    const msgs = Object.values(doc.wasAttributedTo as Record<string, any>);
    expect(msgs).toHaveLength(1);
    expect(doc.agent[msgs[0]['prov:agent']]).toMatchObject({ 'prov:type': 'prov:Person', 'prov:label': 'Prov Person' });
    expect(r.text).not.toContain('secret words of the human');
  });

  it('a deletion that left a gap is wasInvalidatedBy; the CLI prints the same document', async () => {
    const h = t();
    const { token } = await h.human(uniqueKey('provdel'), { admin: true });
    const root = (await h.create(token, { title: 'doomed', prompt: 'go' })).session;
    const child = (await h.create(h.fleetKey, { title: 'orphan', parent_session_id: root.id })).session;
    await h.request('DELETE', `/api/v1/sessions/${root.id}`, { token });
    const doc = (await h.request('GET', `/api/v1/sessions/${child.id}/provenance?format=prov-json`, { token: h.fleetKey })).body;
    expect(validate(doc)).toBe(true);
    expect(Object.values(doc.wasInvalidatedBy)).toEqual([expect.objectContaining({ 'prov:entity': `session:${root.id}` })]);
    const server = await listen(h);
    try {
      const printed = await cli(['provenance', String(child.id), '--format', 'prov-json'], { WARRANT_URL: server.url, WARRANT_TOKEN: h.fleetKey });
      expect(printed.code).toBe(0);
      expect(JSON.parse(printed.stdout)).toEqual(doc);
    } finally {
      await server.close();
    }
  });
});
