import type { Basis } from '../core/basis.js';
import type { Executor } from '../store/dialect/dialect.js';
import type { SessionRecord } from '../store/sessions-repo.js';
import { parseLegacyParentKey } from '../core/legacy-parent-key.js';
import { resolveRef, type RefResolution, type Visibility } from './access.js';
import type { AppContext } from './context.js';

/** docs/concepts.md: what happened to the parent hint, for the create response. */
type ParentDropReason = 'not-found' | 'ambiguous-prefix' | 'prefix-too-short' | 'hint-too-long' | 'owner-mismatch' | 'caller-disagrees';

export interface ParentResolution {
  requested: string | null;
  resolvedId: number | null;
  basis: Basis | null;
  dropped: ParentDropReason | null;
  /** where the hint came from */
  source: 'session-token' | 'body' | 'header' | 'legacy-key' | null;
}

interface ParentHints {
  body: string | null;
  header: string | null;
  legacyKey: string | null;
}

const MAX_PARENT_HINT_LENGTH = 100;

/**
 * docs/concepts.md, first match wins: the authenticated session token,
 * then the body hint, then the header, then the legacy key. Hints resolve only to an
 * existing, visible session of the same owner (multi-user); nothing here ever fails the create.
 * `ownerUserId` is the new session's owner when already fixed (explicit or the human's own),
 * or undefined when it will be inherited from the parent.
 */
async function resolveLegacyHint(db: Executor, ctx: AppContext, visibility: Visibility, key: string): Promise<RefResolution> {
  if ([...key].length > MAX_PARENT_HINT_LENGTH) return { session: null, reason: 'hint-too-long' };
  const ref = parseLegacyParentKey(key);
  if (!ref) return { session: null, reason: 'not-found' };
  return resolveRef(db, ctx, visibility, ref.kind === 'id' ? String(ref.id) : ref.uid, { allowPrefix: false });
}

export async function resolveSpawnParent(
  db: Executor,
  ctx: AppContext,
  visibility: Visibility,
  callerSession: SessionRecord | null,
  hints: ParentHints,
  ownerUserId: number | null | undefined,
): Promise<{ resolution: ParentResolution; parent: SessionRecord | null }> {
  // a blank hint (an empty header a proxy forwarded, `""`) is no hint at all
  const given = (hint: string | null): string | null => (hint === null || hint.trim() === '' ? null : hint);
  hints = { body: given(hints.body), header: given(hints.header), legacyKey: given(hints.legacyKey) };
  const declared = hints.body ?? hints.header;
  const declaredSource = hints.body !== null ? 'body' : hints.header !== null ? 'header' : null;

  if (callerSession) {
    let dropped: ParentDropReason | null = null;
    const requested = declared ?? hints.legacyKey;
    if (requested !== null) {
      const r = await resolveRef(db, ctx, visibility, requested, { allowPrefix: declared !== null, maxLength: MAX_PARENT_HINT_LENGTH });
      if (!r.session || r.session.id !== callerSession.id) dropped = 'caller-disagrees';
    }
    return {
      resolution: { requested, resolvedId: callerSession.id, basis: 'authenticated', dropped, source: 'session-token' },
      parent: callerSession,
    };
  }

  const requested = declared ?? hints.legacyKey;
  if (requested === null) {
    return { resolution: { requested: null, resolvedId: null, basis: null, dropped: null, source: null }, parent: null };
  }
  const isLegacy = declared === null;
  const source = isLegacy ? 'legacy-key' : declaredSource;
  // The legacy key must be spelled as every reader parses it (core/legacy-parent-key.ts): a
  // spelling they cannot match would resolve here and then lose its parent on every read.
  const r = isLegacy
    ? await resolveLegacyHint(db, ctx, visibility, requested)
    : await resolveRef(db, ctx, visibility, requested, { maxLength: MAX_PARENT_HINT_LENGTH });
  if (!r.session) {
    return { resolution: { requested, resolvedId: null, basis: null, dropped: r.reason, source }, parent: null };
  }
  if (ctx.mode === 'multi-user' && ownerUserId !== undefined && r.session.ownerUserId !== ownerUserId) {
    return { resolution: { requested, resolvedId: null, basis: null, dropped: 'owner-mismatch', source }, parent: null };
  }
  return {
    resolution: { requested, resolvedId: r.session.id, basis: isLegacy ? 'legacy' : 'declared', dropped: null, source },
    parent: r.session,
  };
}
