import { SyntheticFleet } from './fleet.js';
import { Progress } from './bench-kit.js';
import { freshStore } from './bench-database.js';
import { seniorsOf, juniorsPageOf, loadHierarchyRows } from '../src/store/lineage-repo.js';
import { sql } from 'kysely';
const { store, drop } = await freshStore('postgres');
const fleet = new SyntheticFleet(store, 'postgres', 20261129);
await fleet.growTo(12000, new Progress());
const db = store.kysely;
const tree = fleet.trees[3]!;
const workers = await loadHierarchyRows(db, store, tree.workers);
const routers = await loadHierarchyRows(db, store, tree.routers);
const t = async (label: string, fn: () => Promise<unknown>, n = 50) => { for (let i = 0; i < 5; i++) await fn(); const t0 = performance.now(); for (let i = 0; i < n; i++) await fn(); console.log(label.padEnd(40), ((performance.now() - t0) / n).toFixed(3), 'ms wall'); };
for (const phase of ['before analyze', 'after analyze']) {
  console.log(phase);
  await t('seniors(workers)', () => seniorsOf(db, store, workers));
  await t('juniorsPage(routers)', () => juniorsPageOf(db, store, routers, { limit: 130, exclude: tree.routers }));
  await t('load', () => loadHierarchyRows(db, store, tree.workers));
  await sql`analyze`.execute(db);
}
await drop();
