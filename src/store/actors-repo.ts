import type { ActorIdentity, ActorKind } from '../core/actors.js';
import { actorRefString } from '../core/actors.js';
import type { Executor } from './dialect/dialect.js';

interface ActorRow {
  id: number;
  kind: ActorKind;
  ref: string;
}

/**
 * Actor rows are immutable and never deleted, so id ↔ identity can be cached for the life
 * of the process. Only rows read back from the store are cached (never a row inserted by a
 * transaction that might still roll back).
 */
export class ActorCache {
  private byId = new Map<number, ActorRow>();
  private byKey = new Map<string, number>();
  get(id: number): ActorRow | undefined {
    return this.byId.get(id);
  }
  idFor(identity: ActorIdentity): number | undefined {
    return this.byKey.get(`${identity.kind}:${actorRefString(identity)}`);
  }
  remember(row: ActorRow): void {
    this.byId.set(row.id, row);
    this.byKey.set(`${row.kind}:${row.ref}`, row.id);
  }
}

/** The id of the actor row for `identity`, creating the row on first use. */
export async function ensureActor(db: Executor, cache: ActorCache, identity: ActorIdentity, now: string): Promise<number> {
  const cached = cache.idFor(identity);
  if (cached !== undefined) return cached;
  const ref = actorRefString(identity);
  const existing = await db.selectFrom('actors').select(['id', 'kind', 'ref']).where('kind', '=', identity.kind).where('ref', '=', ref).executeTakeFirst();
  if (existing) {
    cache.remember(existing as ActorRow);
    return existing.id;
  }
  await db
    .insertInto('actors')
    .values({ kind: identity.kind, ref, created_at: now })
    .onConflict((oc) => oc.columns(['kind', 'ref']).doNothing())
    .execute();
  const row = await db.selectFrom('actors').select('id').where('kind', '=', identity.kind).where('ref', '=', ref).executeTakeFirstOrThrow();
  return row.id;
}

export async function loadActors(db: Executor, cache: ActorCache, ids: readonly number[]): Promise<Map<number, ActorRow>> {
  const out = new Map<number, ActorRow>();
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const hit = cache.get(id);
    if (hit) out.set(id, hit);
    else missing.push(id);
  }
  if (missing.length > 0) {
    const rows = await db.selectFrom('actors').select(['id', 'kind', 'ref']).where('id', 'in', missing).execute();
    for (const row of rows) {
      const actor = row as ActorRow;
      cache.remember(actor);
      out.set(actor.id, actor);
    }
  }
  return out;
}

/** The id of an existing actor row, or null when that actor never acted (filters look, they never create). */
export async function findActorId(db: Executor, identity: { kind: string; ref: string }): Promise<number | null> {
  const row = await db.selectFrom('actors').select('id').where('kind', '=', identity.kind).where('ref', '=', identity.ref).executeTakeFirst();
  return row ? Number(row.id) : null;
}
