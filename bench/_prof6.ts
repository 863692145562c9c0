import Database from 'better-sqlite3';
import { openStore } from '../src/store/connect.js';
import { SyntheticFleet } from './fleet.js';
import { Progress } from './bench-kit.js';
import { juniorsPageOf, loadHierarchyRows } from '../src/store/lineage-repo.js';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
const file = join(mkdtempSync(join(tmpdir(), 'p-')), 'x.db');
const store = await openStore({ sqliteFile: file });
const fleet = new SyntheticFleet(store, 'sqlite', 20261129);
await fleet.growTo(20000, new Progress());
const tree = fleet.trees[3]!;
const db = store.kysely;
const workers = await loadHierarchyRows(db, store, tree.workers);
const exclude = [...tree.routers, ...tree.workers];
// capture compiled query
let captured: any;
const orig = (db as any).getExecutor().executeQuery.bind((db as any).getExecutor());
const raw = new Database(file);
const t = (label: string, fn: () => unknown, n = 300) => { for (let i = 0; i < 20; i++) fn(); const c0 = process.cpuUsage(); for (let i = 0; i < n; i++) fn(); const c = process.cpuUsage(c0); console.log(label.padEnd(40), ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu'); };
const tA = async (label: string, fn: () => Promise<unknown>, n = 300) => { for (let i = 0; i < 20; i++) await fn(); const c0 = process.cpuUsage(); for (let i = 0; i < n; i++) await fn(); const c = process.cpuUsage(c0); console.log(label.padEnd(40), ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu'); };
store.queryLog.start();
await juniorsPageOf(db, store, workers, { limit: 30, exclude });
const [sqlText] = store.queryLog.stop();
// rebuild params by compiling again
const { sql } = await import('kysely');
// params: compile through kysely's internals is complex; instead use placeholder values from a second compile via a spy
const params: unknown[] = [];
const exec = (db as any).executor ?? null;
console.log(sqlText!.length, 'chars');
// get params: monkeypatch better-sqlite3 Statement.all
const proto = Object.getPrototypeOf(raw.prepare('select 1'));
const origAll = proto.all;
let lastParams: unknown[] = [];
proto.all = function (...p: unknown[]) { lastParams = p; return origAll.apply(this, p); };
await juniorsPageOf(db, store, workers, { limit: 30, exclude });
proto.all = origAll;
const stmt = raw.prepare(sqlText!);
t('raw full page query', () => stmt.all(...lastParams));
const cte = sqlText!.slice(sqlText!.indexOf('(') + 1, sqlText!.indexOf(') select "j"'));
const cteParamCount = (cte.match(/\?/g) ?? []).length;
const stmt2 = raw.prepare(cte);
t('raw picked only', () => stmt2.all(...lastParams.slice(0, cteParamCount)));
await tA('kysely juniorsPage', () => juniorsPageOf(db, store, workers, { limit: 30, exclude }));
await tA('kysely load rows', () => loadHierarchyRows(db, store, exclude));
// build+compile cost only: a db whose executor never runs
const { Kysely, SqliteDialect, DummyDriver, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } = await import('kysely');
const dummy = new Kysely<any>({ dialect: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (d: any) => new SqliteIntrospector(d), createQueryCompiler: () => new SqliteQueryCompiler() } });
await tA('kysely build+compile only (dummy)', () => juniorsPageOf(dummy as any, store, workers, { limit: 30, exclude }));
await tA('kysely seniors build only (dummy)', async () => (await import('../src/store/lineage-repo.js')).seniorsOf(dummy as any, store, workers));
await tA('kysely load build only (dummy)', () => loadHierarchyRows(dummy as any, store, exclude));
const cols = 'id, uid, title, status, owner_user_id, agent_root, genesis, scheduling_class, parent_session_id, parent_basis, created_at';
await tA('sql template load (dummy)', () => sql`select ${sql.raw(cols)}, case when parent_basis = 'legacy' then ${store.jsonTextField('custom_metadata', 'router_session_id')} end as legacy_parent_key from sessions where id in (${sql.join(exclude)})`.execute(dummy as any));
await tA('sql template load (real)', () => sql`select ${sql.raw(cols)}, case when parent_basis = 'legacy' then ${store.jsonTextField('custom_metadata', 'router_session_id')} end as legacy_parent_key from sessions where id in (${sql.join(exclude)})`.execute(db));
await tA('sql template load, raw list (real)', () => sql`select ${sql.raw(cols)}, case when parent_basis = 'legacy' then ${store.jsonTextField('custom_metadata', 'router_session_id')} end as legacy_parent_key from sessions where id in (${sql.raw(exclude.map(Number).join(','))})`.execute(db));
