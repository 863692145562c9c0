import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, sameHierarchy } from '../../src/core/hierarchy-types.js';
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

describe('sameHierarchy (what a live view compares before repainting)', () => {
  it('is true for an identical view and false when any rendered field differs', () => {
    fc.assert(
      fc.property(randomGraph({ withOwners: true }), fc.nat(), fc.nat(), (g, pick, fieldPick) => {
        const h = walkInMemory(g);
        expect(sameHierarchy(h, structuredClone(h))).toBe(true);
        const changed = structuredClone(h);
        const node = changed.nodes[pick % changed.nodes.length]!;
        const mutations: (() => void)[] = [
          () => (node.title = `${node.title} (renamed)`),
          () => (node.status = node.status === 'running' ? 'stopped' : 'running'),
          () => (node.owner = node.owner === null ? 'someone' : null),
          () => (node.depth += 1),
          () => (node.renderParentId = node.renderParentId === null ? -1 : null),
          () => (node.hiddenSeniors += 1),
          () => node.alsoSenior.push({ id: -1, basis: 'declared' }),
          () => (node.drawnUnder = node.drawnUnder ? null : { reason: 'ceiling' }),
          () => (changed.truncated = !changed.truncated),
          () => changed.roots.push(-1),
        ];
        mutations[fieldPick % mutations.length]!();
        expect(sameHierarchy(h, changed)).toBe(false);
        expect(JSON.stringify(h) === JSON.stringify(changed)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
