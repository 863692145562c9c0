import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from './schema-arbitrary.js';

/**
 * Judges real responses against an OpenAPI 3.1 document with ajv: the status must be
 * documented for the operation, the content type one of that status's media types, the body
 * valid against its schema. ajv-formats is not a dependency: the formats the document uses are
 * defined here, and a format not defined here fails loudly instead of being ignored.
 */
export interface Operation {
  /** `GET /api/v1/sessions/{ref}` */
  key: string;
  method: string;
  path: string;
  operationId: string | undefined;
  spec: Record<string, any>;
}

export interface Violation {
  operation: string;
  request: string;
  status: number;
  problem: string;
}

const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  email: /^[^\s@]+@[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

const COMPONENTS_ID = 'https://warrant.invalid/openapi-components';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** `application/json; charset=utf-8` → `application/json` */
export const mediaTypeOf = (contentType: string | null): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
          ? `${COMPONENTS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`
          : rewriteRefs(v);
    }
    return out;
  }
  return value;
}

function formatsUsed(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) formatsUsed(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'format' && typeof v === 'string') into.add(v);
      else formatsUsed(v, into);
    }
  }
  return into;
}

export class DocumentValidator {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(readonly document: Record<string, any>) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    const unknownFormats = [...formatsUsed(document)].filter((f) => !(f in FORMATS));
    if (unknownFormats.length > 0)
      throw new Error(`the document uses formats this validator does not define: ${unknownFormats.join(', ')}; add them to FORMATS`);
    for (const [name, pattern] of Object.entries(FORMATS)) this.ajv.addFormat(name, pattern);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components?.schemas ?? {}) as object });
    this.operations = [];
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
      for (const method of METHODS) {
        const spec = item[method];
        if (spec) this.operations.push({ key: `${method.toUpperCase()} ${path}`, method, path, operationId: spec.operationId, spec });
      }
    }
  }

  /** The schema with `#/components/schemas/X` resolved (for generators). */
  resolve = (ref: string): JsonSchema => {
    const name = ref.replace('#/components/schemas/', '');
    const schema = this.document.components?.schemas?.[name];
    if (!schema) throw new Error(`unresolvable $ref ${ref}`);
    return schema;
  };

  private validatorOf(schema: JsonSchema): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(rewriteRefs(schema) as object);
      this.compiled.set(schema, v);
    }
    return v;
  }

  /** whether a value is valid against one of the document's schemas */
  accepts = (schema: JsonSchema, value: unknown): boolean => this.validatorOf(schema)(value);

  /** Every way the response breaks the document; [] when it conforms. */
  check(operation: Operation, status: number, contentType: string | null, bodyText: string): string[] {
    const responses = operation.spec.responses ?? {};
    const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!documented) return [`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    const content: Record<string, { schema?: JsonSchema }> | undefined = documented.content;
    if (!content || Object.keys(content).length === 0)
      return bodyText.length === 0 ? [] : [`status ${status} is documented without a body, but one came (${bodyText.slice(0, 80)})`];
    const media = mediaTypeOf(contentType);
    const entry = content[media];
    if (!entry) return [`content type ${contentType ?? '(none)'} is not documented for ${status} (documented: ${Object.keys(content).join(', ')})`];
    if (!entry.schema) return [];
    let body: unknown = bodyText;
    if (media.endsWith('json')) {
      try {
        body = JSON.parse(bodyText);
      } catch {
        return [`the ${media} body is not JSON: ${bodyText.slice(0, 80)}`];
      }
    }
    const validate = this.validatorOf(entry.schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 3).map((e) => `body ${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }
}
