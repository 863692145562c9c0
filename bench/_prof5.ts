import { openStore } from '../src/store/connect.js';
import { SyntheticFleet } from './fleet.js';
import { Progress } from './bench-kit.js';
import { juniorsPageOf, seniorsOf, loadHierarchyRows } from '../src/store/lineage-repo.js';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const file = join(mkdtempSync(join(tmpdir(), 'p-')), 'x.db');
const store = await openStore({ sqliteFile: file });
const fleet = new SyntheticFleet(store, 'sqlite', 20261129);
await fleet.growTo(20000, new Progress());
const tree = fleet.trees[3]!;
const db = store.kysely;
const routers = await loadHierarchyRows(db, store, tree.routers);
const workers = await loadHierarchyRows(db, store, tree.workers);
const t = async (label: string, fn: () => unknown, n = 300) => { for (let i = 0; i < 20; i++) await fn(); const c0 = process.cpuUsage(); for (let i = 0; i < n; i++) await fn(); const c = process.cpuUsage(c0); console.log(label.padEnd(30), ((c.user + c.system) / 1000 / n).toFixed(3), "ms cpu"); };
for (let round = 0; round < 2; round++) {
await t('load 150', () => loadHierarchyRows(db, store, [...tree.routers, ...tree.workers].slice(0, 150)));
await t('seniors(workers)', () => seniorsOf(db, store, workers));
await t('juniorsPage(routers)', () => juniorsPageOf(db, store, routers, { limit: 130, exclude: tree.routers }));
await t('juniorsPage(workers)', () => juniorsPageOf(db, store, workers, { limit: 30, exclude: [...tree.routers, ...tree.workers] }));
// compile only
const { sql } = await import('kysely');
await t('compile only (kysely select)', () => (db as any).selectFrom('sessions as c').select(['c.id','c.uid','c.title']).where('c.id','in',tree.workers).compile());
}
