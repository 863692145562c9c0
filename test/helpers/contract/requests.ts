import fc from 'fast-check';
import type { DocumentValidator, Operation } from './document-validator.js';
import { arbitraryOf, optional, withoutAbsent, type ArbitraryOptions, type JsonSchema } from './schema-arbitrary.js';

/** One generated request: everything valid against the operation's request schemas. */
export interface GeneratedRequest {
  method: string;
  /** the path with its parameters filled in and the query string */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
/** header values are ByteStrings: printable ASCII only */
const headerSafe = (value: string): boolean => /^[\x20-\x7e]*$/.test(value) && value.trim() === value;

/** Optional fields the plainest request leaves out although real values exist: each changes what the request means. */
const HAPPY_OMITS = new Set(['acting_session_id', 'reply_to', 'parent_session_id', 'parentSessionId', 'parent', 'owner', 'actor', 'uncle']);

/** The arbitrary of an operation's requests, with known values (existing refs, ids) mixed in by name. */
export function requestArbitrary(
  validator: DocumentValidator,
  operation: Operation,
  known: Record<string, unknown[]>,
  happy = false,
): fc.Arbitrary<GeneratedRequest> {
  const options: ArbitraryOptions = { resolve: validator.resolve, known: (name) => known[name], accepts: validator.accepts, happy, happyOmits: HAPPY_OMITS };
  const parameters: Parameter[] = (operation.spec.parameters ?? []).map((p: Parameter & { $ref?: string }) => p);
  const group = (where: Parameter['in']) => {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const p of parameters.filter((q) => q.in === where)) {
      let arb = arbitraryOf(p.schema, options, p.name);
      if (where === 'header') arb = arb.filter((v) => headerSafe(asText(v)));
      if (p.required || where === 'path') model[p.name] = arb;
      else if (!happy) model[p.name] = optional(arb);
    }
    return fc.record(model).map(withoutAbsent);
  };
  const jsonBody = operation.spec.requestBody?.content?.['application/json'];
  const bodyArb: fc.Arbitrary<unknown> = jsonBody
    ? operation.spec.requestBody.required
      ? arbitraryOf(jsonBody.schema, options)
      : fc.option(arbitraryOf(jsonBody.schema, options), { nil: undefined, freq: 3 })
    : fc.constant(undefined);
  const body = happy && jsonBody && !operation.spec.requestBody.required ? fc.constant(undefined) : bodyArb;
  return fc.record({ path: group('path'), query: group('query'), headers: group('header'), body }).map(({ path, query, headers, body }) => {
    let url = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(asText(path[name])));
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, asText(v));
    if ([...search.keys()].length > 0) url += `?${search.toString()}`;
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) h[k] = asText(v);
    return { method: operation.method.toUpperCase(), url, headers: h, ...(body !== undefined ? { body } : {}) };
  });
}
