import { sql } from 'kysely';
import { answerJuniors, type JuniorEntry } from '../src/core/hierarchy-graph.js';
import type { SeniorsAnswer, UnclesAnswer, WalkAnswer, WalkEdge, WalkRequest } from '../src/core/hierarchy-types.js';
import type { Executor, StoreDialect } from '../src/store/dialect/dialect.js';
import type { HierarchyRow } from '../src/store/lineage-repo.js';

/**
 * The baseline of docs/design/quality.md: the reference system's walk — breadth-first, one query per level
 * per direction, over WHOLE rows with the transcript on the row (mimicked by joining the
 * transcript table) and every junior of a level (no paging). It answers the same walk's
 * reads, so it computes the same hierarchy; only what it reads differs.
 */
export interface ReferenceCounters {
  queries: number;
  rows: number;
  /** transcript and metadata bytes the whole rows carried */
  bytes: number;
}

type Whole = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function legacyKeyOf(row: Whole): string | null {
  try {
    const value = (JSON.parse(String(row.custom_metadata ?? '{}')) as Record<string, unknown>).router_session_id;
    return value === undefined || value === null ? null : String(value);
  } catch {
    return null;
  }
}

/** What the walk needs from a whole row (the reference parsed the metadata in the app). */
export function rowOfWhole(r: Whole): HierarchyRow {
  return {
    id: Number(r.id),
    uid: String(r.uid),
    title: (r.title as string | null) ?? null,
    status: r.status as HierarchyRow['status'],
    ownerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
    agentRoot: (r.agent_root as string | null) ?? null,
    genesis: r.genesis as HierarchyRow['genesis'],
    schedulingClass: r.scheduling_class as HierarchyRow['schedulingClass'],
    parentSessionId: r.parent_session_id === null ? null : Number(r.parent_session_id),
    parentBasis: (r.parent_basis as HierarchyRow['parentBasis']) ?? null,
    legacyParentKey: legacyKeyOf(r),
    createdAt: String(r.created_at),
  };
}

export function referenceAnswerer(
  db: Executor,
  d: StoreDialect,
  counters: ReferenceCounters,
): (request: WalkRequest<HierarchyRow>) => Promise<WalkAnswer<HierarchyRow>> {
  const whole = (alias: string) => sql.raw(`${alias}.*, t.record as transcript`);
  const read = async (query: { execute(): Promise<unknown[]> }): Promise<Whole[]> => {
    const rows = (await query.execute()) as Whole[];
    counters.queries++;
    counters.rows += rows.length;
    for (const r of rows) counters.bytes += String(r.transcript ?? '').length + String(r.custom_metadata ?? '').length;
    return rows;
  };
  const sessionsWithTranscript = (alias: string) =>
    (db as any).selectFrom(`sessions as ${alias}`).leftJoin('session_transcripts as t', 't.session_id', `${alias}.id`);

  return async (request) => {
    switch (request.type) {
      case 'seniors': {
        const parentKeys = new Set<string>();
        for (const j of request.of) {
          if (j.parentBasis === 'legacy') {
            if (j.legacyParentKey !== null) parentKeys.add(j.legacyParentKey);
          } else if (j.parentSessionId !== null) parentKeys.add(String(j.parentSessionId));
        }
        const ids = [...parentKeys].filter((k) => /^[0-9]{1,15}$/.test(k)).map(Number);
        const uids = [...parentKeys].filter((k) => UUID.test(k));
        const juniorIds = request.of.map((j) => j.id);
        const parents = sessionsWithTranscript('p')
          .select([whole('p'), sql.lit('spawn').as('edge_kind'), sql.lit(null).as('edge_junior'), sql.lit(null).as('edge_basis')])
          .where((eb: any) => eb.or([eb('p.id', 'in', ids.length > 0 ? ids : [-1]), eb('p.uid', 'in', uids.length > 0 ? uids : ['-'])]));
        const uncles = (db as any)
          .selectFrom('session_uncles as u')
          .innerJoin('sessions as p', 'p.id', 'u.uncle_session_id')
          .leftJoin('session_transcripts as t', 't.session_id', 'p.id')
          .select([whole('p'), sql.lit('uncle').as('edge_kind'), 'u.session_id as edge_junior', 'u.basis as edge_basis'])
          .where('u.session_id', 'in', juniorIds);
        const rows = await read(parents.unionAll(uncles));
        const out: SeniorsAnswer<HierarchyRow> = [];
        const byKey = new Map<string, HierarchyRow>();
        for (const r of rows) {
          const senior = rowOfWhole(r);
          if (r.edge_kind === 'uncle') {
            out.push({
              edge: { seniorId: senior.id, juniorId: Number(r.edge_junior), kind: 'uncle', basis: r.edge_basis as 'authenticated' | 'declared' },
              senior,
            });
          } else {
            byKey.set(String(senior.id), senior);
            byKey.set(senior.uid, senior);
          }
        }
        for (const j of request.of) {
          const key = j.parentBasis === 'legacy' ? j.legacyParentKey : j.parentSessionId === null ? null : String(j.parentSessionId);
          const parent = key === null ? undefined : byKey.get(key);
          if (parent && parent.id < j.id) out.push({ edge: { seniorId: parent.id, juniorId: j.id, kind: 'spawn', basis: null }, senior: parent });
        }
        return out;
      }
      case 'juniors': {
        const ids = request.of.map((s) => s.id);
        const keyToId = new Map<string, number>();
        for (const s of request.of) (keyToId.set(String(s.id), s.id), keyToId.set(s.uid, s.id));
        const legacy = d.jsonTextField('c.custom_metadata', 'router_session_id');
        // typed nulls: PostgreSQL types two untyped nulls as text before meeting the bigint
        const noSenior = sql`cast(null as bigint)`.as('edge_senior');
        const spawn = sessionsWithTranscript('c')
          .select([whole('c'), sql.lit('spawn').as('edge_kind'), noSenior, sql.lit(null).as('edge_basis')])
          .where('c.parent_session_id', 'in', ids);
        const byKey = sessionsWithTranscript('c')
          .select([whole('c'), sql.lit('legacy').as('edge_kind'), noSenior, sql.lit(null).as('edge_basis')])
          .where(legacy, 'in', [...keyToId.keys()])
          .where('c.parent_basis', '=', 'legacy');
        const uncles = (db as any)
          .selectFrom('session_uncles as u')
          .innerJoin('sessions as c', 'c.id', 'u.session_id')
          .leftJoin('session_transcripts as t', 't.session_id', 'c.id')
          .select([whole('c'), sql.lit('uncle').as('edge_kind'), 'u.uncle_session_id as edge_senior', 'u.basis as edge_basis'])
          .where('u.uncle_session_id', 'in', ids);
        const rows = await read(spawn.unionAll(byKey).unionAll(uncles));
        const bySenior = new Map<number, JuniorEntry<HierarchyRow>[]>();
        for (const r of rows) {
          const junior = rowOfWhole(r);
          let edge: WalkEdge | null = null;
          if (r.edge_kind === 'uncle')
            edge = { seniorId: Number(r.edge_senior), juniorId: junior.id, kind: 'uncle', basis: r.edge_basis as 'authenticated' | 'declared' };
          else {
            const seniorId = r.edge_kind === 'legacy' ? keyToId.get(junior.legacyParentKey ?? '') : (junior.parentSessionId ?? undefined);
            if (seniorId !== undefined && seniorId < junior.id) edge = { seniorId, juniorId: junior.id, kind: 'spawn', basis: null };
          }
          if (!edge) continue;
          bySenior.set(edge.seniorId, [...(bySenior.get(edge.seniorId) ?? []), { edge, junior }]);
        }
        // the reference had no paging: it read every junior, then took what fits
        return answerJuniors(request, (id) => bySenior.get(id) ?? []);
      }
      case 'uncles': {
        const rows = await read(
          (db as any)
            .selectFrom('session_uncles as u')
            .innerJoin('sessions as p', 'p.id', 'u.uncle_session_id')
            .leftJoin('session_transcripts as t', 't.session_id', 'p.id')
            .select([whole('p'), 'u.session_id as edge_junior', 'u.basis as edge_basis'])
            .where('u.session_id', 'in', [...request.of]),
        );
        return rows.map((r) => ({
          juniorId: Number(r.edge_junior),
          seniorId: Number(r.id),
          basis: r.edge_basis as 'authenticated' | 'declared',
          seniorOwnerUserId: r.owner_user_id === null ? null : Number(r.owner_user_id),
        })) satisfies UnclesAnswer;
      }
    }
  };
}

/** The reference system's first read: the requested session's whole row. */
export async function referenceLoadSession(db: Executor, id: number, counters: ReferenceCounters): Promise<HierarchyRow> {
  const rows = (await (db as any)
    .selectFrom('sessions as s')
    .leftJoin('session_transcripts as t', 't.session_id', 's.id')
    .select(sql.raw('s.*, t.record as transcript'))
    .where('s.id', '=', id)
    .execute()) as Whole[];
  counters.queries++;
  counters.rows += rows.length;
  for (const r of rows) counters.bytes += String(r.transcript ?? '').length + String(r.custom_metadata ?? '').length;
  return rowOfWhole(rows[0]!);
}
