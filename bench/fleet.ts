import type { StoreDialect } from '../src/store/dialect/dialect.js';
import { sql } from 'kysely';
import type { BenchDialect, Progress } from './bench-kit.js';

/** mulberry32: a small seeded PRNG, so every run builds the same fleet. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A deterministic v4-shaped uid for a session id (so legacy keys can name parents by uid). */
export function uidFor(seed: number, id: number): string {
  const parts = [0, 1, 2, 3].map((k) =>
    mix32(mix32(seed + k * 0x9e3779b9) ^ id ^ (k << 24))
      .toString(16)
      .padStart(8, '0'),
  );
  const hex = parts.join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16]!, 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface TriggerTree {
  trigger: number;
  routers: number[];
  workers: number[];
  helpers: number[];
}

interface SessionSpec {
  id: number;
  parentId: number | null;
  agentRoot: string;
  title: string;
  status: string;
  genesis: string;
  schedulingClass: string;
}

const TRANSCRIPT_BYTES = 100 * 1024;
const BATCH = 1000;
const BASE_TIME = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * The synthetic fleet of docs/design/quality.md, seeded and deterministic: triggers spawn routers, routers
 * spawn 1–8 workers, workers 0–3 helpers; ~5 % of sessions get an uncle edge from another
 * hierarchy; ~10 % name their parent only by the legacy key (by id or by uid); ~10 % carry
 * a 100 KB transcript. Loaded with bulk inserts straight through the store (not REST), and
 * grown in place so the same hierarchies are read at every size.
 */
export class SyntheticFleet {
  private readonly random: () => number;
  private nextId = 1;
  readonly trees: TriggerTree[] = [];
  readonly stats = { sessions: 0, uncles: 0, legacy: 0, transcripts: 0, transcriptBytes: 0 };
  private readonly transcripts: string[] = [];

  constructor(
    private readonly store: StoreDialect,
    private readonly dialect: BenchDialect,
    readonly seed: number,
  ) {
    this.random = prng(seed);
    // a pool of incompressible 100 KB transcripts (random text defeats TOAST compression)
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    for (let k = 0; k < 16; k++) {
      const chars = new Array<string>(TRANSCRIPT_BYTES);
      for (let i = 0; i < TRANSCRIPT_BYTES; i++) chars[i] = alphabet[Math.floor(this.random() * 64)]!;
      this.transcripts.push(chars.join(''));
    }
  }

  get size(): number {
    return this.nextId - 1;
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  /** Appends whole trigger trees until the fleet holds at least `target` sessions. */
  async growTo(target: number, progress: Progress): Promise<void> {
    const start = this.size;
    let specs: SessionSpec[] = [];
    while (this.size < target) {
      const tree = this.tree();
      this.trees.push(tree.tree);
      specs.push(...tree.specs);
      if (specs.length >= BATCH * 10) {
        await this.insert(specs);
        specs = [];
        progress.update(`${this.dialect}: seeding the fleet`, this.size - start, target - start);
      }
    }
    if (specs.length > 0) await this.insert(specs);
    await this.fixIdentity();
    progress.done();
  }

  /** One trigger's tree: ids in creation order, every parent older than its child. */
  private tree(): { tree: TriggerTree; specs: SessionSpec[] } {
    const specs: SessionSpec[] = [];
    const make = (parentId: number | null, agentRoot: string, genesis: string, schedulingClass: string): number => {
      const id = this.nextId++;
      const status = this.random() < 0.85 ? 'stopped' : this.random() < 0.5 ? 'running' : 'archived';
      specs.push({
        id,
        parentId,
        agentRoot,
        title: `${agentRoot} ${id}: ${agentRoot === 'trigger' ? 'nightly sweep' : 'work item'}`,
        status,
        genesis,
        schedulingClass,
      });
      return id;
    };
    const scheduled = this.random() < 0.5;
    const genesis = scheduled ? 'schedule' : 'api';
    const cls = scheduled ? 'spot' : 'priority';
    const trigger = make(null, 'trigger', genesis, cls);
    const tree: TriggerTree = { trigger, routers: [], workers: [], helpers: [] };
    const routerCount = this.int(12, 20);
    for (let r = 0; r < routerCount; r++) tree.routers.push(make(trigger, 'router', genesis, cls));
    for (const router of tree.routers) {
      const workers = this.int(1, 8);
      for (let w = 0; w < workers; w++) tree.workers.push(make(router, 'worker', genesis, cls));
    }
    for (const worker of tree.workers) {
      const helpers = this.int(0, 3);
      for (let k = 0; k < helpers; k++) tree.helpers.push(make(worker, 'helper', genesis, cls));
    }
    return { tree, specs };
  }

  private async insert(specs: SessionSpec[]): Promise<void> {
    const db = this.store.kysely;
    const firstOfBatch = specs[0]!.id;
    for (let i = 0; i < specs.length; i += BATCH) {
      const chunk = specs.slice(i, i + BATCH);
      const uncles: { session_id: number; uncle_session_id: number; source: string; basis: string; recorded_by_actor_id: null; created_at: string }[] = [];
      const transcripts: { session_id: number; record: string; created_at: string }[] = [];
      const rows = chunk.map((s) => {
        const at = new Date(BASE_TIME + s.id * 1000).toISOString();
        let parentSessionId: number | null = s.parentId;
        let parentBasis: string | null = s.parentId === null ? null : this.random() < 0.5 ? 'authenticated' : 'declared';
        let metadata = '{}';
        if (s.parentId !== null && this.random() < 0.1) {
          // the legacy key only: derived at read time, never copied into the column (docs/design/lineage.md)
          parentSessionId = null;
          parentBasis = 'legacy';
          metadata = JSON.stringify({ router_session_id: this.random() < 0.5 ? String(s.parentId) : uidFor(this.seed, s.parentId) });
          this.stats.legacy++;
        }
        // an uncle from an earlier hierarchy: lower id than the junior, so the graph stays acyclic
        if (s.agentRoot !== 'trigger' && firstOfBatch > 1 && this.random() < 0.05) {
          const earlier = this.treesBefore(firstOfBatch);
          // one of the 400 most recent earlier hierarchies (uncles connect sessions that ran together)
          const tree = earlier > 0 ? this.trees[Math.max(0, earlier - 400) + Math.floor(this.random() * Math.min(earlier, 400))] : undefined;
          const pool = tree ? [...tree.routers, ...tree.workers] : [];
          const senior = pool.length > 0 ? pool[Math.floor(this.random() * pool.length)]! : null;
          if (senior !== null && senior < s.id) {
            uncles.push({
              session_id: s.id,
              uncle_session_id: senior,
              source: 'mcp.follow_up',
              basis: this.random() < 0.5 ? 'authenticated' : 'declared',
              recorded_by_actor_id: null,
              created_at: at,
            });
            this.stats.uncles++;
          }
        }
        if (this.random() < 0.1) {
          const text = this.transcripts[s.id % this.transcripts.length]!;
          transcripts.push({ session_id: s.id, record: JSON.stringify({ role: 'assistant', text }), created_at: at });
          this.stats.transcripts++;
          this.stats.transcriptBytes += text.length;
        }
        return {
          id: s.id,
          uid: uidFor(this.seed, s.id),
          title: s.title,
          slug: s.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
          status: s.status,
          agent_root: s.agentRoot,
          genesis: s.genesis,
          scheduling_class: s.schedulingClass,
          parent_session_id: parentSessionId,
          parent_basis: parentBasis,
          custom_metadata: metadata,
          created_at: at,
          updated_at: at,
        };
      });
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('sessions').values(rows).execute();
        if (uncles.length > 0) await tx.insertInto('session_uncles').values(uncles).execute();
        for (let k = 0; k < transcripts.length; k += 20)
          await tx
            .insertInto('session_transcripts')
            .values(transcripts.slice(k, k + 20))
            .execute();
      });
      this.stats.sessions += chunk.length;
    }
  }

  /** How many trees start before `id` (trees are kept in id order). */
  private treesBefore(id: number): number {
    let lo = 0;
    let hi = this.trees.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.trees[mid]!.trigger < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Appends sessions a module needs for its own fixture, with ids after the fleet's. */
  async append(specs: { parentId: number | null; agentRoot: string; title: string }[]): Promise<number[]> {
    const out: SessionSpec[] = specs.map((s) => ({
      id: this.nextId++,
      parentId: s.parentId,
      agentRoot: s.agentRoot,
      title: s.title,
      status: 'stopped',
      genesis: 'api',
      schedulingClass: 'priority',
    }));
    const db = this.store.kysely;
    for (let i = 0; i < out.length; i += BATCH) {
      const chunk = out.slice(i, i + BATCH);
      await db
        .insertInto('sessions')
        .values(
          chunk.map((s) => {
            const at = new Date(BASE_TIME + s.id * 1000).toISOString();
            return {
              id: s.id,
              uid: uidFor(this.seed, s.id),
              title: s.title,
              status: s.status,
              agent_root: s.agentRoot,
              genesis: s.genesis,
              scheduling_class: s.schedulingClass,
              parent_session_id: s.parentId,
              parent_basis: s.parentId === null ? null : 'authenticated',
              created_at: at,
              updated_at: at,
            };
          }),
        )
        .execute();
    }
    await this.fixIdentity();
    return out.map((s) => s.id);
  }

  /**
   * Explicit ids bypass PostgreSQL's identity sequence: move it past them. And gather the
   * planner statistics autovacuum would gather after a bulk load (a live server has them;
   * a bench that measured right after loading would time plans made for empty tables).
   */
  private async fixIdentity(): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await sql`select setval(pg_get_serial_sequence('sessions', 'id'), (select max(id) from sessions))`.execute(this.store.kysely);
    await sql`analyze sessions, session_uncles, session_transcripts`.execute(this.store.kysely);
  }
}
