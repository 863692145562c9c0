import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, type DialectName } from '../databases.js';
import { createScene, startContractServer, type ContractServer } from './contract-server.js';
import { DocumentValidator } from './document-validator.js';
import { formatViolations, runContract, type ContractFigures } from './run-contract.js';

/**
 * The contract is the truth (docs/api.md "OpenAPI"): requests generated from the served
 * OpenAPI document (fast-check arbitraries of its request schemas, with real refs mixed in so
 * success paths are reached) go to a real `warrant serve` on both dialects with every kind of
 * credential; every answer's status, content type and body must be what the document says,
 * no answer is a 5xx, and no request the document calls valid is refused as invalid.
 */
const SEED = Number(process.env.WARRANT_CONTRACT_SEED ?? 20261201);
const RUNS = Number(process.env.WARRANT_CONTRACT_RUNS ?? 4);

/** Documented operations the generator does not call, each with why. */
export const NOT_EXERCISED: Record<string, string> = {
  'GET /api/v1/events/stream':
    'an SSE stream never ends by itself; test/http/live-events.test.ts and live-resync.test.ts hold it to its events and Last-Event-ID',
  'POST /integrations/slack/events':
    "the credential is Slack's HMAC signature of the raw body, which a schema-driven generator cannot make; test/human-messages/slack-ingress.test.ts covers it",
  'GET /metrics': 'Prometheus text outside /api/v1; test/http/auth.test.ts covers who may read it',
};

/**
 * Exercised operations that never answer 2xx to the generated requests, each with why; every
 * other operation must succeed at least once, so the run is known to reach its success path.
 */
export const NO_SUCCESS_PATH: Record<string, string> = {
  'POST /api/v1/sessions/{ref}/terminal/turns':
    'only a witness credential (wrt_t_, minted for an attached run by its human) may call it, and the scene holds none yet; test/human-messages/terminal-witness.test.ts covers every answer on both dialects',
  'POST /api/v1/sessions/{ref}/terminal/prompts':
    'needs a witness credential, a reported turn and a matching prompt report of the same run; test/human-messages/terminal-witness.test.ts covers it',
  'POST /api/v1/sessions/{ref}/terminal/close': 'needs a witness credential for the run; test/human-messages/terminal-witness.test.ts covers it',
  'POST /api/v1/sessions/{ref}/terminal/alive': 'needs a witness credential for the run; test/human-messages/terminal-witness.test.ts covers it',
  'POST /api/v1/inbox/{item_id}/resend':
    'only an `undelivered` item can be resent: that takes a runner that wrote an item and a lease that lapsed unmatched (60 s), which no request can fast-forward; test/http/agent-delivery.test.ts covers it',
};

/** The contract suite on one dialect (one file per dialect, so the two run side by side). */
export function contractSuite(dialect: DialectName): void {
  describe(`the OpenAPI document is the truth [${dialect}]`, () => {
    // like every PostgreSQL suite: skipped only off CI without a server (CI fails instead, global-setup.ts)
    const unavailable = dialect === 'postgres' && !pgAvailable();
    let server: ContractServer;
    let validator: DocumentValidator;
    let figures: ContractFigures;

    beforeAll(async () => {
      if (unavailable) return;
      server = await startContractServer(dialect);
      const doc = await server.call('GET', '/api/v1/openapi.json', null);
      expect(doc.status).toBe(200);
      validator = new DocumentValidator(doc.json);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it.skipIf(unavailable)(
      'every operation × every credential: documented status, content type and body; no 5xx; no schema-valid request refused',
      async () => {
        figures = await runContract(server, validator, { seed: SEED, runs: RUNS, skip: new Set(Object.keys(NOT_EXERCISED)) });
        const statuses = Object.entries(figures.byStatus)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ');
        process.stdout.write(
          `[contract ${dialect}] seed ${SEED}: ${figures.requests} requests over ${validator.operations.length} operations (${figures.succeeded.size} reached 2xx); statuses ${statuses}; ${figures.violations.length} violations, ${figures.serverErrors.length} 5xx\n`,
        );
        if (process.env.WARRANT_CONTRACT_DUMP)
          writeFileSync(`${process.env.WARRANT_CONTRACT_DUMP}.${dialect}.json`, JSON.stringify(figures.violations.concat(figures.serverErrors), null, 1));
        if (process.env.WARRANT_CONTRACT_DUMP)
          writeFileSync(`${process.env.WARRANT_CONTRACT_DUMP}.${dialect}.answers.json`, JSON.stringify(figures.answers, null, 1));
        expect(formatViolations(figures.serverErrors), 'no answer is a 5xx').toBe('');
        expect(formatViolations(figures.violations), 'every answer is what the document says').toBe('');
        expect(figures.violations).toHaveLength(0);
      },
      300_000,
    );

    it.skipIf(unavailable)('no operation is left out: each has an operationId, is exercised, and reaches its success path (or is listed with why)', () => {
      expect(figures, 'the contract run above ran').toBeDefined();
      const problems: string[] = [];
      const ids = new Map<string, string>();
      for (const op of validator.operations) {
        if (!op.operationId || !/^[a-z][A-Za-z0-9]*$/.test(op.operationId))
          problems.push(`${op.key}: give it a camelCase operationId (createRoute({ operationId: … }))`);
        else if (ids.has(op.operationId)) problems.push(`${op.key}: operationId ${op.operationId} is also ${ids.get(op.operationId)}`);
        else ids.set(op.operationId, op.key);
        if (NOT_EXERCISED[op.key]) continue;
        const listed = NO_SUCCESS_PATH[op.key];
        const succeeded = figures.succeeded.has(op.key);
        if (!succeeded && !listed) {
          problems.push(
            `${op.key} never answered 2xx: teach createScene (test/helpers/contract/contract-server.ts) to make what it needs — a known value for each of its parameters and body fields (scene.known[<name>]) and a credential that may call it — or, if no request can reach it, add it to NO_SUCCESS_PATH (or NOT_EXERCISED) in test/helpers/contract/contract-suite.ts with why`,
          );
        }
        if (succeeded && listed) problems.push(`${op.key} answered 2xx: remove it from NO_SUCCESS_PATH`);
      }
      const documented = new Set(validator.operations.map((o) => o.key));
      for (const key of [...Object.keys(NO_SUCCESS_PATH)])
        if (!documented.has(key)) problems.push(`${key} is listed in NO_SUCCESS_PATH but not documented: remove it`);
      expect(problems.join('\n')).toBe('');
    });

    it.skipIf(unavailable)('the check can fail: a copy of the document narrower than what the routes return reports violations for real answers', async () => {
      const scene = await createScene(server, 10_000);
      const { fleet } = server.tokens;
      const agent = scene.known.ref![0];
      const mid = scene.known.mid![0];
      const sendNow = validator.operations.find((o) => o.key === 'POST /api/v1/sessions/{ref}/enqueued_messages/{mid}/send_now')!;
      const getSession = validator.operations.find((o) => o.key === 'GET /api/v1/sessions/{ref}')!;
      // a change with no effect: the second send_now finds the message already next (changed: false, uncle_edge: null)
      await server.call('POST', `/api/v1/sessions/${agent}/enqueued_messages/${mid}/send_now`, fleet, {});
      const noEffect = await server.call('POST', `/api/v1/sessions/${agent}/enqueued_messages/${mid}/send_now`, fleet, {});
      expect(noEffect.json).toMatchObject({ changed: false, uncle_edge: null });
      const missing = await server.call('GET', '/api/v1/sessions/999999999', fleet);
      expect(missing.status).toBe(404);
      const rendered = await server.call('GET', `/api/v1/sessions/${agent}?format=markdown`, fleet);
      expect(rendered.status).toBe(200);
      const answers = [
        { op: sendNow, r: noEffect },
        { op: getSession, r: missing },
        { op: getSession, r: rendered },
      ];
      for (const { op, r } of answers) expect(validator.check(op, r.status, r.contentType, r.text)).toEqual([]);

      const narrower = structuredClone(validator.document);
      narrower.components.schemas.QueueChangeResult.properties.uncle_edge = { $ref: '#/components/schemas/UncleEdgeOutcome' };
      delete narrower.paths['/api/v1/sessions/{ref}'].get.responses['404'];
      delete narrower.paths['/api/v1/sessions/{ref}'].get.responses['200'].content['text/markdown'];
      const strict = new DocumentValidator(narrower);
      const op = (key: string) => strict.operations.find((o) => o.key === key)!;
      expect(strict.check(op(sendNow.key), noEffect.status, noEffect.contentType, noEffect.text).join('\n')).toMatch(/\/uncle_edge must be object/);
      expect(strict.check(op(getSession.key), missing.status, missing.contentType, missing.text).join('\n')).toMatch(/status 404 is not documented/);
      expect(strict.check(op(getSession.key), rendered.status, rendered.contentType, rendered.text).join('\n')).toMatch(
        /content type text\/markdown.* is not documented/,
      );
    });

    it.skipIf(unavailable)('the document says where it is served and under which licence', () => {
      const doc = validator.document;
      expect(doc.servers).toEqual([expect.objectContaining({ url: expect.any(String) })]);
      expect(doc.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
    });
  });
}
