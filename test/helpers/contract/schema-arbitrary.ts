import fc from 'fast-check';

/**
 * fast-check arbitraries derived from the JSON Schemas of an OpenAPI 3.1 document: every value
 * an arbitrary yields is valid against the schema it came from (that is the point — a
 * schema-valid request the server refuses as invalid means the document under-describes it).
 */
export type JsonSchema = Record<string, any>;

export interface ArbitraryOptions {
  /** resolves `#/components/schemas/…` */
  resolve: (ref: string) => JsonSchema;
  /**
   * Values that reach success paths (existing session refs, message ids) by property or
   * parameter name; they are mixed with generated values, never replace them.
   */
  known?: (name: string) => unknown[] | undefined;
  /** whether a known value is valid against the schema it would stand for (only valid ones are used) */
  accepts: (schema: JsonSchema, value: unknown) => boolean;
  /** the plainest request: known values only where there are some, and of the optional fields only those with known values, except these */
  happy?: boolean;
  happyOmits?: ReadonlySet<string>;
}

const MAX_GENERATED_STRING = 24;
const MAX_ARRAY = 4;
const MAX_DEPTH = 4;

/** Text without U+0000 and lone surrogates (the input rules every route applies before its schema; docs/api.md "Input limits"). */
const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', '日', '😀', 'ß', '\n', 'Ω') },
);

function textOf(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, minLength + MAX_GENERATED_STRING));
  // JSON Schema counts code points; zod counts UTF-16 units: keep both counts inside the bounds
  return fc
    .array(textUnit, { minLength, maxLength: max })
    .map((units) => units.join(''))
    .filter((s) => s.length <= maxLength && [...s].length >= minLength);
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 10_000;
  if (schema.format === 'date-time' || schema.format === 'date') {
    const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });
    return day.map((d) => (schema.format === 'date' ? d.toISOString().slice(0, 10) : d.toISOString()));
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => [...s].length >= minLength && s.length <= maxLength && !s.includes('\u0000'));
  }
  const arbitraries: fc.Arbitrary<string>[] = [textOf(minLength, maxLength)];
  // the boundary itself, in ASCII so both counts agree
  if (schema.maxLength !== undefined && maxLength <= 10_000) arbitraries.push(fc.constant('x'.repeat(maxLength)));
  return fc.oneof(...arbitraries);
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? Number.MIN_SAFE_INTEGER);
  const max = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : (schema.maximum ?? Number.MAX_SAFE_INTEGER);
  const small = fc.integer({ min: Math.max(min, -50), max: Math.min(max, 50) });
  const edges = fc.constantFrom(min, max);
  const any = fc.maxSafeInteger().filter((n) => n >= min && n <= max);
  return min <= 50 && max >= -50
    ? fc.oneof({ weight: 4, arbitrary: small }, { weight: 1, arbitrary: edges }, { weight: 1, arbitrary: any })
    : fc.oneof(edges, any);
}

function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1e9;
  const max = schema.maximum ?? 1e9;
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

const plainJson = fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('\\u0000'));

export function arbitraryOf(schema: JsonSchema | undefined, options: ArbitraryOptions, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || (schema as unknown) === true) return plainJson;
  if (schema.$ref) return arbitraryOf(options.resolve(schema.$ref), options, name, depth);
  const generated = generatedOf(schema, options, name, depth);
  const known = name ? options.known?.(name)?.filter((value) => options.accepts(schema, value)) : undefined;
  if (known && known.length > 0 && options.happy) return fc.constantFrom(...known);
  return known && known.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: generated }) : generated;
}

function generatedOf(schema: JsonSchema, options: ArbitraryOptions, name: string, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) {
    if (schema.oneOf && alternatives.every((a: JsonSchema) => a.$ref || a.type === 'object')) {
      // oneOf of objects (a discriminated union): each branch alone is exactly one match
      return fc.oneof(...alternatives.map((a: JsonSchema) => arbitraryOf(a, options, '', depth)));
    }
    return fc.oneof(...alternatives.map((a: JsonSchema) => arbitraryOf(a, options, '', depth)));
  }
  if (Array.isArray(schema.allOf))
    return arbitraryOf(mergeAll(schema.allOf.map((s: JsonSchema) => (s.$ref ? options.resolve(s.$ref) : s))), options, name, depth);
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => generatedOf({ ...schema, type }, options, name, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'string':
      return stringArbitrary(schema);
    case 'array':
      return fc.array(arbitraryOf(schema.items, options, `${name}[]`, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? MAX_ARRAY, MAX_ARRAY),
      });
    case 'object':
      return objectArbitrary(schema, options, depth);
    default:
      return plainJson;
  }
}

function objectArbitrary(schema: JsonSchema, options: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  if (Object.keys(properties).length === 0) {
    if (depth >= MAX_DEPTH || schema.additionalProperties === false) return fc.constant({});
    const values =
      schema.additionalProperties && schema.additionalProperties !== true ? arbitraryOf(schema.additionalProperties, options, '', depth + 1) : plainJson;
    return fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }), values, { maxKeys: 3 });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(properties)) {
    const value = arbitraryOf(sub, options, key, depth + 1);
    if (required.has(key)) model[key] = value;
    else if (!options.happy) model[key] = optional(value);
    else if (options.known?.(key) && !options.happyOmits?.has(key)) model[key] = value;
  }
  return fc.record(model).map(withoutAbsent);
}

const ABSENT = Symbol('absent');

/** An optional key is present one time in three, so requests are not all about their rarer fields. */
export const optional = (value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: value });

export const withoutAbsent = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== ABSENT));

/** allOf of object schemas (zod's `.extend` of a named schema): one object with every property and every requirement. */
function mergeAll(parts: JsonSchema[]): JsonSchema {
  const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
  for (const p of parts) {
    Object.assign(merged.properties, p.properties ?? {});
    merged.required.push(...(p.required ?? []));
    if (p.additionalProperties === false) merged.additionalProperties = false;
  }
  return merged;
}
