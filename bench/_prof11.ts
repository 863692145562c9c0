import { SyntheticFleet } from './fleet.js';
import { Progress } from './bench-kit.js';
import { freshStore } from './bench-database.js';
import { seniorsOf, juniorsPageOf, loadHierarchyRows } from '../src/store/lineage-repo.js';
import { sql, CompiledQuery } from 'kysely';
const { store, drop } = await freshStore('postgres');
const fleet = new SyntheticFleet(store, 'postgres', 20261129);
await fleet.growTo(20000, new Progress());
const db = store.kysely;
const tree = fleet.trees[3]!;
const workers = await loadHierarchyRows(db, store, tree.workers);
const routers = await loadHierarchyRows(db, store, tree.routers);
// capture compiled queries with params via a kysely plugin-less trick: re-run with log
const captured: { sql: string; params: readonly unknown[] }[] = [];
import pg from 'pg';
const origQuery = (pg as any).Client.prototype.query;
(pg as any).Client.prototype.query = function (text: any, values: any, ...rest: any[]) { if (typeof text === 'string' && /picked|union all/.test(text)) captured.push({ sql: text, params: values }); return origQuery.call(this, text, values, ...rest); };
await seniorsOf(db, store, workers);
await juniorsPageOf(db, store, routers, { limit: 130, exclude: tree.routers });
(pg as any).Client.prototype.query = origQuery;
for (const c of captured) {
  const r = await db.executeQuery(CompiledQuery.raw('explain (analyze, buffers) ' + c.sql, c.params as unknown[]));
  console.log((r.rows as any[]).map((x) => x['QUERY PLAN']).join('\n'));
  console.log('-----');
}
await drop();
