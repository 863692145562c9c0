/**
 * docs/concepts.md: the kind of evidence behind a recorded act or claim.
 * A claim is stored with its basis and never upgraded.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- the list is the one source of the type
const BASES = ['authenticated', 'delegated', 'declared', 'legacy', 'corrected'] as const;
export type Basis = (typeof BASES)[number];

/** Act bases (actor, cause, creator, uncle) never use `legacy` or `corrected`. */
export type ActBasis = 'authenticated' | 'delegated' | 'declared';

const STRENGTH: Record<ActBasis, number> = { authenticated: 3, delegated: 2, declared: 1 };

/**
 * The weaker of two act bases: a cause inherited through a weaker act keeps the weaker basis.
 * @example weakerBasis('authenticated', 'declared') // 'declared'
 */
export function weakerBasis(a: ActBasis, b: ActBasis): ActBasis {
  return STRENGTH[a] <= STRENGTH[b] ? a : b;
}
