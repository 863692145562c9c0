import { describe, expect, it } from 'vitest';
import { causedSessionIds, directlyCausedBy, type CausationFacts } from '../../src/core/causation.js';

/** core/causation.ts: the one definition of "caused" (docs/attribution.md "What a person caused"). */
const s = (id: number, cause: number | null, creator: number | null, creatorSession: number | null = null): CausationFacts => ({
  id,
  causeActorId: cause,
  creatorActorId: creator,
  creatorSessionId: creatorSession,
});

describe('causedSessionIds', () => {
  it('takes the sessions caused or created directly, and what they created, wherever it sits; never spawn parents alone', () => {
    const sessions = [
      s(1, 7, 7), // alice's router
      s(2, 7, 101, 1), // its worker
      s(3, null, 102, 2), // created by the worker, its cause lost (a legacy row)
      s(4, 8, 8), // bob's
      s(5, 8, 104, 4), // bob's worker
      s(6, 9, 9), // carol's session (under alice's router by parent only: not a fact the rule reads)
      s(7, 7, 7), // alice created it directly
    ];
    expect([...causedSessionIds(7, sessions)].sort()).toEqual([1, 2, 3, 7]);
    expect([...causedSessionIds(8, sessions)].sort()).toEqual([4, 5]);
    expect(directlyCausedBy(sessions[2]!, 7)).toBe(false);
  });

  it('follows at most maxDepth creator hops below a directly caused session', () => {
    const chain = [s(1, 7, 7), ...Array.from({ length: 5 }, (_, i) => s(i + 2, null, 100 + i, i + 1))];
    expect(causedSessionIds(7, chain, 2)).toEqual(new Set([1, 2, 3]));
    expect(causedSessionIds(7, chain).size).toBe(6);
    expect(causedSessionIds(99, chain).size).toBe(0);
  });
});
