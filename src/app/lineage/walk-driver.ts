import { answerJuniors, type JuniorEntry } from '../../core/hierarchy-graph.js';
import {
  MAX_NODES,
  type JuniorsAnswer,
  type SeniorsAnswer,
  type UnclesAnswer,
  type WalkAnswer,
  type WalkOutcome,
  type WalkRequest,
} from '../../core/hierarchy-types.js';
import type { Executor, StoreDialect } from '../../store/dialect/dialect.js';
import { juniorsPageOf } from '../../store/lineage-juniors-repo.js';
import { seniorsOf, uncleEdgesOf, type HierarchyRow } from '../../store/lineage-repo.js';

type Walk = Generator<WalkRequest<HierarchyRow>, WalkOutcome<HierarchyRow>, unknown>;
type Request = WalkRequest<HierarchyRow>;
type Answer = WalkAnswer<HierarchyRow>;

/** Answers each read of one walk with exactly one store query (the request path). */
function storeAnswerer(db: Executor, d: StoreDialect): (request: Request) => Promise<Answer> {
  return async (request) => {
    switch (request.type) {
      case 'seniors':
        return (await seniorsOf(db, d, request.of)).map(({ edge, senior }) => ({ edge, senior })) satisfies SeniorsAnswer<HierarchyRow>;
      case 'juniors': {
        const page = await juniorsPageOf(db, d, request.of, {
          afterId: request.afterId,
          exclude: [...request.exclude],
          limit: request.limit,
          ...(request.owners === 'all' ? {} : { visibleOwners: request.owners }),
        });
        return {
          rows: page.edges,
          lastPickedId: page.lastPickedId,
          exhausted: page.exhausted,
          uncles: page.uncles.map((u) => ({
            juniorId: u.edge.juniorId,
            seniorId: u.edge.seniorId,
            basis: u.edge.basis ?? 'declared',
            seniorOwnerUserId: u.seniorOwnerUserId,
          })),
        } satisfies JuniorsAnswer<HierarchyRow>;
      }
      case 'uncles':
        return (await uncleEdgesOf(db, d, request.of)).map((u) => ({
          juniorId: u.edge.juniorId,
          seniorId: u.edge.seniorId,
          basis: u.edge.basis ?? 'declared',
          seniorOwnerUserId: u.seniorOwnerUserId,
        })) satisfies UnclesAnswer;
    }
  };
}

/**
 * Hierarchy walks this process has run, by where they ran: the counter `/metrics` exposes as
 * `warrant_hierarchy_walks_total`, and what tests read to prove that N viewers of one tree
 * cost one walk per change, not N (docs/concepts.md "Live refresh"). Every walk goes through
 * `runWalks`, so none escapes it.
 */
export const walkCounts = { total: 0 };

/**
 * Runs several walks together: every round, the reads the pending walks are waiting on go to
 * `fulfill` together, so a loader can answer them with one query per kind. With `answerLoaded`
 * (a loader's answer from what it already holds, null when it would have to read), a walk runs
 * on alone for as long as that answers it and waits for the next round only for a read: walks
 * over a graph already loaded then run one after another, not all at once. That is what keeps
 * a live refresh's young heap small — 150 walks in lockstep keep 150 walks' working sets alive
 * at every step, and the scavenger copied them over and over (half of an edge change's time).
 */
export async function runWalks(
  walks: Walk[],
  fulfill: (requests: Request[]) => Promise<Answer[]>,
  answerLoaded?: (request: Request) => Answer | null,
): Promise<WalkOutcome<HierarchyRow>[]> {
  walkCounts.total += walks.length;
  const outcomes: (WalkOutcome<HierarchyRow> | undefined)[] = new Array(walks.length);
  const pending = new Map<number, Request>();
  const advance = (i: number, answer: Answer | undefined): void => {
    let step = walks[i]!.next(answer);
    while (!step.done && answerLoaded) {
      const loaded = answerLoaded(step.value);
      if (loaded === null) break;
      step = walks[i]!.next(loaded);
    }
    if (step.done) outcomes[i] = step.value;
    else pending.set(i, step.value);
  };
  walks.forEach((_, i) => advance(i, undefined));
  while (pending.size > 0) {
    const entries = [...pending.entries()];
    const answers = await fulfill(entries.map(([, r]) => r));
    pending.clear();
    entries.forEach(([i], k) => advance(i, answers[k]));
  }
  return outcomes as WalkOutcome<HierarchyRow>[];
}

/** One walk against the store, one query per read. */
export async function runWalkOnStore(walk: Walk, db: Executor, d: StoreDialect): Promise<WalkOutcome<HierarchyRow>> {
  const answer = storeAnswerer(db, d);
  const [outcome] = await runWalks([walk], (requests) => Promise.all(requests.map(answer)));
  return outcome!;
}

/** How many juniors one batched read of the loader picks (any walk needs at most 151 per level). */
const LOADER_JUNIOR_PAGE = 4 * (MAX_NODES + 1);

/**
 * The part of the lineage graph a live refresh loads once (docs/concepts.md): seniors,
 * juniors and uncle chips are read in batches for every walk of the refresh together, kept,
 * and each walk's reads are answered from what is loaded — so N viewers of one tree cost
 * about one walk's queries, not N.
 */
export class LineageLoader {
  private readonly seniors = new Map<number, SeniorsAnswer<HierarchyRow>>();
  private readonly uncles = new Map<number, UnclesAnswer>();
  /** per senior: its juniors by id, complete for ids up to `coveredUpTo` */
  private readonly juniors = new Map<number, { entries: JuniorEntry<HierarchyRow>[]; keys: Set<string>; coveredUpTo: number }>();
  /** queries issued and rows read, for tests and the bench */
  readonly stats = { queries: 0, rows: 0 };

  constructor(
    private readonly db: Executor,
    private readonly d: StoreDialect,
    /** juniors picked per batched read (tests make it small to exercise partial loads) */
    private readonly juniorPage = LOADER_JUNIOR_PAGE,
  ) {}

  async fulfill(requests: Request[]): Promise<Answer[]> {
    await this.loadSeniors(requests.flatMap((r) => (r.type === 'seniors' ? r.of : [])));
    await this.loadUncles(requests.flatMap((r) => (r.type === 'uncles' ? r.of : [])));
    const answers = new Array<Answer | null>(requests.length).fill(null);
    for (;;) {
      const missing: Extract<Request, { type: 'juniors' }>[] = [];
      requests.forEach((r, i) => {
        answers[i] ??= this.answerLoaded(r);
        if (answers[i] === null && r.type === 'juniors') missing.push(r);
      });
      if (missing.length === 0) return answers as Answer[];
      await this.loadJuniors(missing.flatMap((r) => r.of));
    }
  }

  /** The answer from what is loaded, or null when a read is needed (runWalks' `answerLoaded`). */
  answerLoaded(request: Request): Answer | null {
    switch (request.type) {
      case 'seniors':
        return request.of.every((j) => this.seniors.has(j.id)) ? request.of.flatMap((j) => this.seniors.get(j.id)!) : null;
      case 'uncles':
        return request.of.every((j) => this.uncles.has(j)) ? request.of.flatMap((j) => this.uncles.get(j)!) : null;
      case 'juniors':
        return this.answerJuniors(request);
    }
  }

  private async loadSeniors(rows: readonly HierarchyRow[]): Promise<void> {
    const wanted = new Map<number, HierarchyRow>();
    for (const r of rows) if (!this.seniors.has(r.id)) wanted.set(r.id, r);
    if (wanted.size === 0) return;
    const found = await seniorsOf(this.db, this.d, [...wanted.values()]);
    this.stats.queries++;
    this.stats.rows += found.length;
    for (const id of wanted.keys()) this.seniors.set(id, []);
    for (const s of found) this.seniors.get(s.edge.juniorId)?.push({ edge: s.edge, senior: s.senior });
  }

  private async loadUncles(ids: readonly number[]): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => !this.uncles.has(id));
    if (wanted.length === 0) return;
    const found = await uncleEdgesOf(this.db, this.d, wanted);
    this.stats.queries++;
    this.stats.rows += found.length;
    for (const id of wanted) this.uncles.set(id, []);
    for (const u of found) {
      this.uncles
        .get(u.edge.juniorId)
        ?.push({ juniorId: u.edge.juniorId, seniorId: u.edge.seniorId, basis: u.edge.basis ?? 'declared', seniorOwnerUserId: u.seniorOwnerUserId });
    }
  }

  /** Answers from what is loaded, or null when the loaded range cannot prove the answer. */
  private answerJuniors(request: Extract<Request, { type: 'juniors' }>): JuniorsAnswer<HierarchyRow> | null {
    let covered = Infinity;
    for (const s of request.of) covered = Math.min(covered, this.juniors.get(s.id)?.coveredUpTo ?? 0);
    const answer = answerJuniors(
      request,
      (id) => {
        const entries = this.juniors.get(id)?.entries ?? [];
        return covered === Infinity ? entries : entries.filter((e) => e.junior.id <= covered);
      },
      (id) => this.uncles.get(id),
    );
    // a full page lies entirely within the loaded range; a short one is only final when complete
    return !answer.exhausted || covered === Infinity ? answer : null;
  }

  private async loadJuniors(seniors: readonly HierarchyRow[]): Promise<void> {
    const wanted = new Map<number, HierarchyRow>();
    for (const s of seniors) if ((this.juniors.get(s.id)?.coveredUpTo ?? 0) !== Infinity) wanted.set(s.id, s);
    let after = Infinity;
    for (const id of wanted.keys()) after = Math.min(after, this.juniors.get(id)?.coveredUpTo ?? 0);
    const page = await juniorsPageOf(this.db, this.d, [...wanted.values()], { afterId: after, limit: this.juniorPage });
    this.stats.queries++;
    this.stats.rows += page.edges.length;
    const reach = page.exhausted ? Infinity : page.lastPickedId!;
    for (const id of wanted.keys()) {
      const slot = this.juniors.get(id) ?? { entries: [], keys: new Set<string>(), coveredUpTo: 0 };
      slot.coveredUpTo = Math.max(slot.coveredUpTo, reach);
      this.juniors.set(id, slot);
    }
    // every uncle edge of each junior the page picked: complete, so they answer chip reads too
    const picked = new Set(page.edges.map((e) => e.junior.id));
    for (const id of picked) if (!this.uncles.has(id)) this.uncles.set(id, []);
    for (const u of page.uncles) {
      const list = this.uncles.get(u.edge.juniorId);
      if (list && !list.some((x) => x.seniorId === u.edge.seniorId))
        list.push({ juniorId: u.edge.juniorId, seniorId: u.edge.seniorId, basis: u.edge.basis ?? 'declared', seniorOwnerUserId: u.seniorOwnerUserId });
    }
    for (const e of page.edges) {
      const slot = this.juniors.get(e.edge.seniorId);
      const key = `${e.edge.kind}:${e.junior.id}`;
      if (!slot || slot.keys.has(key)) continue;
      slot.keys.add(key);
      slot.entries.push({ edge: e.edge, junior: e.junior });
    }
  }
}
