import { sql, type RawBuilder } from 'kysely';
import { LEGACY_PARENT_KEY, parseLegacyParentKey } from '../core/legacy-parent-key.js';
import type { Executor, StoreDialect } from './dialect/dialect.js';

// Spawn ancestry for authorization (app/access.ts): is one session above another over spawn edges?

async function ancestryRows(db: Executor, query: RawBuilder<unknown>): Promise<Record<string, unknown>[]> {
  return (await query.execute(db)).rows as Record<string, unknown>[];
}

/**
 * Whether `ancestorId` is `targetId` or one of its spawn ancestors, over the column and the
 * legacy key. One recursive query climbs the column edges (spawn parents are always older,
 * so it stops below `ancestorId`); a legacy key at the top of a climb is parsed
 * (core/legacy-parent-key.ts) and the climb resumes from the session it names. So a column
 * chain of any depth costs one query, and each legacy hop one or two more.
 */
export async function isSpawnAncestorOf(db: Executor, d: StoreDialect, ancestorId: number, targetId: number, budget = 5000): Promise<boolean> {
  let start: number | null = targetId;
  let climbed = 0;
  while (start !== null && start >= ancestorId && climbed < budget) {
    if (start === ancestorId) return true;
    const key = (alias: string): RawBuilder<unknown> =>
      sql.raw(`case when ${alias}.parent_basis = 'legacy' then ${d.jsonTextFieldSql(`${alias}.custom_metadata`, LEGACY_PARENT_KEY)} end`);
    const rows = await ancestryRows(
      db,
      sql`with recursive up(id, parent_session_id, parent_basis, legacy_parent_key, n) as (
          select s.id, s.parent_session_id, s.parent_basis, ${key('s')}, 1 from sessions s where s.id = ${start}
          union all
          select p.id, p.parent_session_id, p.parent_basis, ${key('p')}, up.n + 1
            from up inner join sessions p on p.id = up.parent_session_id
            where up.parent_basis is not null and up.parent_basis <> 'legacy' and p.id < up.id and p.id >= ${ancestorId} and up.n < ${budget - climbed})
        select id, legacy_parent_key, n from up where id = ${ancestorId} or n = (select max(n) from up)`,
    );
    if (rows.some((r) => Number(r.id) === ancestorId)) return true;
    const top = rows[0];
    if (!top) return false;
    climbed += Number(top.n);
    const ref = parseLegacyParentKey(top.legacy_parent_key as string | null);
    if (!ref) return false;
    const parentId: number | null =
      ref.kind === 'id' ? ref.id : ((await ancestryRows(db, sql`select id from sessions where uid = ${ref.uid}`)).map((r) => Number(r.id))[0] ?? null);
    start = parentId !== null && parentId < Number(top.id) ? parentId : null;
  }
  return false;
}
