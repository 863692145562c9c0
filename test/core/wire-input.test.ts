import { describe, expect, it } from 'vitest';
import { findInputProblem, MAX_INPUT_DEPTH } from '../../src/core/wire-input.js';

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

describe('findInputProblem', () => {
  it('accepts well-formed text, pairs and nesting up to the limit', () => {
    expect(findInputProblem({ title: 'ok \uD83D\uDE00', tags: ['a', 'b'], n: 1, x: null })).toBeNull();
    expect(findInputProblem(nest(MAX_INPUT_DEPTH))).toBeNull();
  });

  it('names the field of a lone surrogate or a NUL, in values and in keys, through arrays', () => {
    expect(findInputProblem({ title: '\uDC00' })).toMatchObject({ field: 'title', message: expect.stringContaining('lone surrogate') });
    expect(findInputProblem({ meta: { list: ['ok', 'a\u0000'] } })).toMatchObject({ field: 'meta.list.1', message: expect.stringContaining('NUL') });
    expect(findInputProblem({ meta: { ['k\uD800']: 1 } })).toMatchObject({
      field: 'meta',
      message: expect.stringMatching(/^has a key that contains a lone surrogate/),
    });
    expect(findInputProblem('\u0000')).toMatchObject({ field: 'body' });
  });

  it('refuses one level too deep, naming the top-level field, without recursion at any depth', () => {
    expect(findInputProblem({ a: nest(MAX_INPUT_DEPTH - 1) })).toBeNull();
    expect(findInputProblem({ a: nest(MAX_INPUT_DEPTH) })).toMatchObject({ field: 'a' });
    expect(findInputProblem({ custom_metadata: nest(MAX_INPUT_DEPTH) })).toMatchObject({
      field: 'custom_metadata',
      message: `is nested deeper than ${MAX_INPUT_DEPTH} levels; flatten it.`,
    });
    expect(findInputProblem({ custom_metadata: nest(200_000) })).toMatchObject({ field: 'custom_metadata' });
  });
});
