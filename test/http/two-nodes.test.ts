import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openHarness } from '../helpers/harness.js';
import { pgAvailable } from '../helpers/databases.js';
import { openStore } from '../../src/store/connect.js';
import { createAppContext } from '../../src/app/bootstrap.js';
import { assembleService } from '../../src/composition.js';
import { SseReader } from '../helpers/sse.js';

describe.skipIf(!pgAvailable())('two API nodes on one PostgreSQL (docs/design/quality.md)', () => {
  it('a change on one node reaches the SSE clients of the other, with the same event ids', async () => {
    const h = await openHarness('postgres');
    const store2 = await openStore({ databaseUrl: h.database.databaseUrl, sqliteFile: h.database.sqliteFile });
    const ctx2 = await createAppContext(store2, { logger: pino({ level: 'silent' }) });
    const node2 = await assembleService(store2, ctx2, { housekeeping: false });
    try {
      const res = await node2.app.request('/api/v1/events/stream', { headers: { authorization: `Bearer ${h.fleetKey}`, host: 'localhost' } });
      const sse = new SseReader(res);
      await sse.next((e) => e.event === 'ready');
      const onNode1 = (await h.create(h.fleetKey, { title: 'made on node 1' })).session;
      const seen = await sse.next((e) => e.event === 'session_created' && JSON.parse(e.data).session.id === onNode1.id);
      const row = await h.store.kysely.selectFrom('live_events').select(['id', 'type']).where('id', '=', Number(seen.id)).executeTakeFirstOrThrow();
      expect(row.type).toBe('session_created');
      await sse.close();
    } finally {
      await node2.stop();
      await store2.destroy();
      await h.close();
    }
  });
});
