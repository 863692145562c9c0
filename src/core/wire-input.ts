import { hasLoneSurrogate } from './text.js';

/**
 * What every surface accepts from outside before a renderer, a digest or a store sees it
 * (docs/api.md "Input limits"): well-formed Unicode (a lone surrogate has no UTF-8 form, so canonical
 * JSON, digests and the two stores would each treat it differently), no U+0000 (PostgreSQL
 * text and jsonb cannot hold it, SQLite would), and JSON nested at most this deep (recursive
 * renderers and JSON columns have their own, different limits).
 */
export const MAX_INPUT_DEPTH = 32;

export interface InputProblem {
  /** the field, as a dotted path from the top of the input (`custom_metadata.note`, `tags.2`) */
  field: string;
  message: string;
}

const KEY_SHOWN = 64;

function fieldName(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'body';
  return path.map((p) => (typeof p === 'string' && p.length > KEY_SHOWN ? `${p.slice(0, KEY_SHOWN)}…` : String(p))).join('.');
}

function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000); remove it and send again.';
  if (hasLoneSurrogate(text)) return 'contains a lone surrogate (half of a UTF-16 pair), which is not well-formed Unicode; send valid text.';
  return null;
}

/**
 * The first problem in a parsed input, or null. Walks without recursion, so no input can
 * exhaust the stack; stops at the first container deeper than the limit.
 *
 * @example
 * findInputProblem({ title: 'a\uD800' }) // { field: 'title', message: 'contains a lone surrogate …' }
 * findInputProblem({ custom_metadata: nest(40) }) // { field: 'custom_metadata', message: 'is nested deeper than 32 levels …' }
 */
export function findInputProblem(input: unknown, maxDepth: number = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value: input, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { field: fieldName(path), message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > maxDepth) {
      return { field: fieldName(path.slice(0, 1)), message: `is nested deeper than ${maxDepth} levels; flatten it.` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const problem = textProblem(key);
      if (problem) return { field: fieldName(path), message: `has a key that ${problem}` };
      stack.push({ value: child, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}
