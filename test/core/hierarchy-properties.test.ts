import fc from 'fast-check';
import { describe, it } from 'vitest';
import { DEFAULT_BOUNDS } from '../../src/core/hierarchy-types.js';
import { checkHierarchy, randomGraph, walkInMemory } from '../helpers/hierarchy-check.js';

describe('hierarchy walk properties (in memory)', () => {
  it('matches the breadth-first reference, orders depth-first, and truncates exactly when something is left out', () => {
    fc.assert(
      fc.property(randomGraph({ withOwners: true }), (g) => {
        checkHierarchy(g, walkInMemory(g));
      }),
      { numRuns: 1500 },
    );
  });

  it('holds with the real bounds on larger graphs', () => {
    fc.assert(
      fc.property(randomGraph({ maxSessions: 300 }), (g) => {
        const real = { ...g, bounds: DEFAULT_BOUNDS };
        checkHierarchy(real, walkInMemory(real));
      }),
      { numRuns: 150 },
    );
  });
});
