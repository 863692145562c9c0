import fc from 'fast-check';
import { expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { causedSessionIds, type CausationFacts } from '../../src/core/causation.js';
import { ensureActor } from '../../src/store/actors-repo.js';
import { listSessions } from '../../src/store/session-list-repo.js';
import { describeEachDialect, type Harness } from '../helpers/harness.js';

/**
 * The store's caused_by query (store/causation-repo.ts) against the one definition
 * (core/causation.ts), on random forests of sessions: every cause, creator and creator session
 * drawn at random, on both dialects.
 */

async function facts(h: Harness): Promise<CausationFacts[]> {
  const sessions = await h.store.kysely.selectFrom('sessions').select(['id', 'cause_actor_id', 'creator_actor_id']).execute();
  const actors = await h.store.kysely.selectFrom('actors').select(['id', 'ref']).where('kind', '=', 'session').execute();
  const sessionOf = new Map(actors.map((a) => [Number(a.id), Number(a.ref)]));
  return sessions.map((s) => ({
    id: Number(s.id),
    causeActorId: s.cause_actor_id === null ? null : Number(s.cause_actor_id),
    creatorActorId: s.creator_actor_id === null ? null : Number(s.creator_actor_id),
    creatorSessionId: s.creator_actor_id === null ? null : (sessionOf.get(Number(s.creator_actor_id)) ?? null),
  }));
}

describeEachDialect('caused_by: the recursive query agrees with core/causation.ts', (t) => {
  it('on random forests, for every human and session actor, whatever the depth bound leaves', async () => {
    const h = t();
    const now = new Date().toISOString();
    const humans: number[] = [];
    for (let i = 0; i < 3; i++) humans.push(await ensureActor(h.store.kysely, h.ctx.actors, { kind: 'human', userId: 900_000 + i }, now));
    // each new session: a cause (a human or none), and a creator (a human, an earlier session of this run, or none)
    const step = fc.record({ cause: fc.integer({ min: -1, max: 2 }), creatorKind: fc.constantFrom('human', 'session', 'none'), pick: fc.nat() });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const made: { id: number; actorId: number }[] = [];
        for (const st of steps) {
          const creator =
            st.creatorKind === 'human'
              ? humans[st.pick % humans.length]!
              : st.creatorKind === 'session' && made.length > 0
                ? made[st.pick % made.length]!.actorId
                : null;
          const row = await h.store.kysely
            .insertInto('sessions')
            .values({
              uid: randomUUID(),
              title: null,
              slug: null,
              status: 'pending',
              owner_user_id: null,
              agent_root: null,
              genesis: 'api',
              scheduling_class: 'batch',
              parent_session_id: null,
              parent_basis: null,
              creator_actor_id: creator,
              creator_basis: creator === null ? null : 'authenticated',
              cause_actor_id: st.cause < 0 ? null : humans[st.cause]!,
              cause_basis: st.cause < 0 ? null : 'authenticated',
              model: null,
              provider: null,
              provider_conversation: null,
              runtime_parent_id: null,
              runtime_origin: null,
              runtime_conversation_id: null,
              failure_reason: null,
              created_at: now,
              updated_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          const id = Number(row.id);
          made.push({ id, actorId: await ensureActor(h.store.kysely, h.ctx.actors, { kind: 'session', sessionId: id }, now) });
        }
        const all = await facts(h);
        for (const actorId of [...humans, made[0]!.actorId]) {
          const listed = await listSessions(h.store.kysely, h.store, { causedByActorId: actorId, limit: 100_000 });
          expect(listed.map((s) => s.id).sort((a, b) => a - b)).toEqual([...causedSessionIds(actorId, all)].sort((a, b) => a - b));
        }
      }),
      { numRuns: 15, seed: 20261201 },
    );
  });
});
