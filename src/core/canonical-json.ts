/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: members sorted by their names'
 * UTF-16 code units, no whitespace, numbers and strings as ECMAScript's JSON.stringify writes
 * them. It is the exact text an audit entry stores and hashes, so every dialect and every
 * verifier hashes the same bytes (docs/attribution.md).
 *
 * Written here rather than taken from the `canonicalize` package, which it is tested to agree
 * with on every JSON value (test/core/canonical-json.test.ts): every write of the log runs it,
 * and the package's checks (a lone-surrogate scan in script, a cycle set per call) made it about
 * a tenth of an audit append's CPU. What it refuses, it refuses as the package does: NaN, the
 * infinities, a string with a lone surrogate, a cycle. A member whose value is undefined, a
 * function or a symbol is left out, as JSON.stringify leaves it out.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalText(value, []);
  if (text === undefined) throw new Error('audit entry is not serializable');
  return text;
}

type Ancestors = unknown[];

// String.prototype.isWellFormed is in Node 20's V8; TypeScript's lib has it from ES2024 on
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function canonicalText(value: unknown, ancestors: Ancestors): string | undefined {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw new Error('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed');
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? 'null' : objectText(value, ancestors);
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined; // undefined, a function, a symbol
  }
}

function objectText(value: object, ancestors: Ancestors): string | undefined {
  if (ancestors.includes(value)) throw new Error('Circular reference detected');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    ancestors.push(value);
    const text = canonicalText(toJSON.call(value), ancestors);
    ancestors.pop();
    return text;
  }
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + (canonicalText(value[i], ancestors) ?? 'null');
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    // the default sort compares UTF-16 code units, as RFC 8785 §3.2.3 orders member names
    const names = Object.keys(record).sort();
    text = '{';
    let first = true;
    for (const name of names) {
      const member = canonicalText(record[name], ancestors);
      if (member === undefined) continue;
      if (!isWellFormed(name)) throw new Error('Lone surrogate is not allowed');
      text += (first ? '' : ',') + JSON.stringify(name) + ':' + member;
      first = false;
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}
