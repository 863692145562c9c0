import fc from 'fast-check';
import { createScene, TOKEN_KINDS, type ContractServer, type TokenKind } from './contract-server.js';
import type { DocumentValidator, Operation, Violation } from './document-validator.js';
import { requestArbitrary, type GeneratedRequest } from './requests.js';

/**
 * Request rules no schema can state, each with why. A `400 invalid-request` to a request the
 * document calls valid is otherwise a violation: the document under-describes the route.
 */
export const RULES_BEYOND_SCHEMA: { /** an operationId, or `*` for every operation */ operation: string; field: string; why: string }[] = [
  { operation: '*', field: 'cursor', why: 'a cursor is opaque: its format is documented (base64url), its content only the server that minted it can check' },
  {
    operation: 'POST /api/v1/sessions',
    field: 'owner',
    why: 'who may name an owner depends on the credential (fleet and integration keys only), which no request schema sees; the field says so',
  },
  {
    operation: 'POST /api/v1/sessions',
    field: 'runner',
    why: 'a cross-field rule (only with attach: true) that zod-to-openapi cannot state; the field says so',
  },
  {
    operation: 'POST /api/v1/sessions',
    field: 'delivery',
    why: 'a cross-field rule (only with attach: true) that zod-to-openapi cannot state; the field says so',
  },
  {
    operation: 'POST /api/v1/messages',
    field: 'to',
    why: 'a cross-field rule (required unless reply_to names what this answers) that zod-to-openapi cannot state; the field says so',
  },
];

export interface ContractFigures {
  requests: number;
  byStatus: Record<string, number>;
  /** operations that answered 2xx at least once */
  succeeded: Set<string>;
  /** per operation: `status[/error]` counts */
  answers: Record<string, Record<string, number>>;
  violations: Violation[];
  serverErrors: Violation[];
}

export interface ContractRunOptions {
  seed: number;
  /** runs per operation and token kind (`none` gets a third: it is always 401) */
  runs: number;
  /** operations not exercised, by key */
  skip: Set<string>;
}

const describeRequest = (kind: TokenKind, r: GeneratedRequest) =>
  `[${kind}] ${r.method} ${r.url}${r.body !== undefined ? ` ${JSON.stringify(r.body).slice(0, 200)}` : ''}`;

function underDescribed(operation: Operation, status: number, json: any): string | null {
  // agent messages answer ill-formed input with their own 422 envelope-invalid (docs/messages.md)
  const invalid =
    (status === 400 && (json?.error === 'invalid-request' || json?.error === 'malformed-json')) || (status === 422 && json?.error === 'envelope-invalid');
  if (!invalid) return null;
  const field = typeof json.field === 'string' ? json.field : '';
  if (RULES_BEYOND_SCHEMA.some((r) => (r.operation === '*' || r.operation === operation.key) && r.field === field)) return null;
  return `a schema-valid request was refused: ${json.error} ${field ? `(${field}) ` : ''}${json.message}`;
}

/** Sends every operation's generated requests with every credential and judges each answer against the document. */
export async function runContract(server: ContractServer, validator: DocumentValidator, options: ContractRunOptions): Promise<ContractFigures> {
  const figures: ContractFigures = { requests: 0, byStatus: {}, succeeded: new Set(), answers: {}, violations: [], serverErrors: [] };
  let n = 0;
  for (const operation of validator.operations) {
    if (options.skip.has(operation.key)) continue;
    n += 1;
    const scene = await createScene(server, n);
    const samples = fc.sample(requestArbitrary(validator, operation, scene.known), { numRuns: options.runs * TOKEN_KINDS.length, seed: options.seed + n });
    // each credential's first request is the plainest one (real refs, no optional field): it reaches the success path where that credential may
    const plain = fc.sample(requestArbitrary(validator, operation, scene.known, true), { numRuns: TOKEN_KINDS.length, seed: options.seed + n });
    // the credentials call at once (each its requests in order): the server answers them concurrently, as in use
    await Promise.all(
      TOKEN_KINDS.map(async (kind, k) => {
        const token = kind === 'none' ? null : kind === 'session' ? scene.agentToken : server.tokens[kind];
        const runs = kind === 'none' ? Math.max(1, Math.ceil(options.runs / 3)) : options.runs;
        for (let run = 0; run < runs; run++) {
          const request = run === 0 ? plain[k]! : samples[k * options.runs + run]!;
          const r = await server.call(request.method, request.url, token, request.body, request.headers);
          record(figures, validator, operation, kind, request, r);
        }
      }),
    );
    if (operation.spec.requestBody) {
      // the same plain request with a body that is not JSON: its refusal must be documented too
      const request = { ...plain[0]!, headers: { ...plain[0]!.headers, 'content-type': 'text/plain' } };
      const r = await server.call(request.method, request.url, server.tokens.fleet, request.body ?? {}, request.headers);
      record(figures, validator, operation, 'fleet', request, r);
    }
  }
  return figures;
}

function record(
  figures: ContractFigures,
  validator: DocumentValidator,
  operation: Operation,
  kind: TokenKind,
  request: GeneratedRequest,
  r: { status: number; contentType: string | null; text: string; json: any },
): void {
  figures.requests += 1;
  figures.byStatus[r.status] = (figures.byStatus[r.status] ?? 0) + 1;
  if (r.status >= 200 && r.status < 300) figures.succeeded.add(operation.key);
  const answer = `${r.status}${typeof r.json?.error === 'string' ? ` ${r.json.error}` : ''} [${kind}]`;
  const answers = (figures.answers[operation.key] ??= {});
  answers[answer] = (answers[answer] ?? 0) + 1;
  const at = { operation: operation.key, request: describeRequest(kind, request), status: r.status };
  if (r.status >= 500) figures.serverErrors.push({ ...at, problem: `${r.status}: ${r.text.slice(0, 200)}` });
  for (const problem of validator.check(operation, r.status, r.contentType, r.text)) figures.violations.push({ ...at, problem });
  const refused = underDescribed(operation, r.status, r.json);
  if (refused) figures.violations.push({ ...at, problem: refused });
}

export function formatViolations(list: Violation[], max = 40): string {
  const lines = list.slice(0, max).map((v) => `${v.operation} → ${v.status}: ${v.problem}\n    ${v.request}`);
  if (list.length > max) lines.push(`… and ${list.length - max} more`);
  return lines.join('\n');
}
