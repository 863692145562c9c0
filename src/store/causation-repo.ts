import { sql, type RawBuilder } from 'kysely';
import { CAUSATION_MAX_DEPTH } from '../core/causation.js';

/**
 * core/causation.ts as SQL: the ids of the sessions `actorId` caused, a subquery for
 * `id in (…)`. Seeds are the sessions directly caused (their cause or creator is the actor);
 * each step follows the creator edge from a caused session (its session actor) to the sessions
 * it created that are not seeds themselves — every session has one creator, so each is reached
 * once, and the depth bounds the walk on both dialects.
 */
export function causedSessionIdsSql(actorId: number, maxDepth = CAUSATION_MAX_DEPTH): RawBuilder<unknown> {
  return sql`(with recursive caused(id, depth) as (
      select s.id, 0 from sessions s where s.cause_actor_id = ${actorId} or s.creator_actor_id = ${actorId}
      union all
      select c.id, caused.depth + 1
        from caused
        inner join actors ca on ca.kind = 'session' and ca.ref = cast(caused.id as text)
        inner join sessions c on c.creator_actor_id = ca.id
       where caused.depth < ${maxDepth}
         and (c.cause_actor_id is null or c.cause_actor_id <> ${actorId})
         and c.creator_actor_id <> ${actorId})
    select id from caused)`;
}
