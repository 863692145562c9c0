import pino from 'pino';
import { openStore } from '../src/store/connect.js';
import { createAppContext } from '../src/app/bootstrap.js';
import { SyntheticFleet } from './fleet.js';
import { Progress } from './bench-kit.js';
import { hierarchyOf } from '../src/app/lineage/hierarchy.js';
import { patchSession } from '../src/app/sessions/patch-session.js';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const file = join(mkdtempSync(join(tmpdir(), 'p-')), 'x.db');
const store = await openStore({ sqliteFile: file });
const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }) });
await ctx.live.start(); ctx.hierarchies.start();
const fleet = new SyntheticFleet(store, 'sqlite', 20261129);
await fleet.growTo(12000, new Progress());
const FLEET = { principal: { kind: 'fleet' }, credentialId: null, surface: 'rest', via: 'rest' } as any;
const h = await hierarchyOf(ctx, FLEET, fleet.trees[3]!.helpers.at(-1)!);
console.log('nodes', h.nodes.length);
for (const n of h.nodes) await ctx.hierarchies.subscribe(n.id, FLEET, () => {});
const changed = h.nodes[75]!.id;
for (let i = 0; i < 30; i++) {
  const c0 = process.cpuUsage(); const t0 = performance.now();
  await patchSession(ctx, FLEET, String(changed), { title: 'x' + i });
  await ctx.hierarchies.settle();
  const c = process.cpuUsage(c0);
  console.log('change', (performance.now() - t0).toFixed(1), 'ms wall', ((c.user + c.system) / 1000).toFixed(1), 'ms cpu', ctx.hierarchies.stats);
}
process.exit(0);
