import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { humanMessageEntry } from '../../app/human-messages/index.js';
import { closeTerminal, mintWitness, recordRunPrompt, reportTurn, witnessAlive, witnessPrompt } from '../../app/human-messages/index.js';
import { serializeHumanMessage } from '../../render/human-messages-json.js';
import { json, route, type HttpEnv } from '../env.js';
import { ErrorSchema, HumanMessageSchema, RefParam } from '../schemas.js';
import {
  AliveResponse,
  CloseBody,
  CloseResponse,
  RunPromptBody,
  TurnBody,
  TurnResponse,
  WitnessBody,
  WitnessedPromptBody,
  WitnessMinted,
} from '../terminal-schemas.js';

const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const errors = {
  400: error('invalid input'),
  401: error('no, bad or revoked credential'),
  404: error('no such session'),
};
const witnessOnly = "Witness credential (wrt_t_…) of this session's current activation only; any other credential is refused (`witness-credential-scope`).";

/** docs/design/terminal-channel.md: the witness credential, the runner's terminal reports, and `--prompt`. */
export function registerTerminalRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/witness',
      operationId: 'mintWitness',
      summary: "Exchange a human token for the run's witness credential",
      description:
        'A human token (wrt_h_…) of a person who may act on the session, which must be attached (running or idle). The credential is bound to the session, its current activation and that person; minting again revokes the earlier one. It is revoked by the closing report, by the runtime reporting `exited` or `error`, and by the next attach.',
      request: { params: RefParam, body: { content: { 'application/json': { schema: WitnessBody } }, required: false } },
      responses: {
        201: ok(WitnessMinted, 'the witness credential'),
        ...errors,
        403: error('witness-needs-human-token, forbidden'),
        409: error('session-not-attached'),
      },
    }),
    async (c) => {
      const r = await mintWitness(ctx, c.get('caller'), c.req.valid('param').ref);
      return json(c, { witness_token: r.witnessToken, session_id: r.sessionId, activation: r.activation }, 201);
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/terminal/turns',
      operationId: 'reportTerminalTurn',
      summary: 'A non-empty turn the runner relayed from its TTY (digest and length only)',
      description: `${witnessOnly} Echo-off turns (a password prompt) are never reported. Every reported turn must end up witnessed (\`…/terminal/prompts\`) or the run is a capture gap.`,
      request: { params: RefParam, body: { content: { 'application/json': { schema: TurnBody } }, required: true } },
      responses: { 201: ok(TurnResponse, 'the turn, recorded'), ...errors, 403: error('witness-credential-scope, token-superseded') },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const r = await reportTurn(ctx, c.get('caller'), c.req.valid('param').ref, {
        digest: b.digest,
        length: b.length,
        reliable: b.reliable,
        pasted: b.pasted,
      });
      return json(c, { turn_id: r.turnId }, 201);
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/terminal/prompts',
      operationId: 'recordTerminalPrompt',
      summary: 'A witnessed prompt: records the human message `cli.terminal_prompt`',
      description: `${witnessOnly} Recorded only when the turn is this run's, reliable, not yet consumed and equal to \`text\` (digest and length), and the agent reported (\`…/prompts\`) an equal prompt not already matched to anything. Turn and report are consumed together: the same words record nothing twice. The content is the runner's text, never the report's.`,
      request: { params: RefParam, body: { content: { 'application/json': { schema: WitnessedPromptBody } }, required: true } },
      responses: {
        201: ok(z.object({ human_message: HumanMessageSchema }), 'the human message, with `witness_isolation`'),
        ...errors,
        403: error('witness-credential-scope, token-superseded'),
        404: error('terminal-turn-not-found, session-not-found'),
        409: error('terminal-turn-unreliable, terminal-turn-consumed, terminal-turn-mismatch, prompt-report-missing'),
      },
    }),
    async (c) => {
      const b = c.req.valid('json');
      const r = await witnessPrompt(ctx, c.get('caller'), c.req.valid('param').ref, {
        turnId: b.turn_id,
        text: b.text,
        pasted: b.pasted,
        witnessIsolation: b.witness_isolation,
      });
      return json(c, { human_message: serializeHumanMessage(await humanMessageEntry(ctx, r.humanMessageId)) }, 201);
    },
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/terminal/close',
      operationId: 'closeTerminalReport',
      summary: "The runner's closing report: how many turns it reported; revokes the witness credential",
      description: `${witnessOnly} A run whose count differs from the turns recorded, or that ended without this report, is a capture gap.`,
      request: { params: RefParam, body: { content: { 'application/json': { schema: CloseBody } }, required: true } },
      responses: {
        200: ok(CloseResponse, 'closed'),
        ...errors,
        403: error('witness-credential-scope, token-superseded'),
        409: error('terminal-already-closed'),
      },
    }),
    async (c) => json(c, await closeTerminal(ctx, c.get('caller'), c.req.valid('param').ref, { turns: c.req.valid('json').turns })),
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/terminal/alive',
      operationId: 'reportWitnessAlive',
      summary: "The witnessing runner's heartbeat (every 15 s): its run is still watched",
      description: `${witnessOnly} A live run whose witness sends neither this nor its closing report for 45 s is a capture gap: its runner was killed or bypassed. No body.`,
      request: { params: RefParam },
      responses: {
        200: ok(AliveResponse, 'heard'),
        ...errors,
        403: error('witness-credential-scope, token-superseded'),
        409: error('terminal-already-closed'),
      },
    }),
    async (c) => json(c, await witnessAlive(ctx, c.get('caller'), c.req.valid('param').ref)),
  );

  route(
    app,
    createRoute({
      method: 'post',
      path: '/api/v1/sessions/{ref}/run-prompt',
      operationId: 'recordRunPrompt',
      summary: '`warrant run --prompt TEXT`: records TEXT as the human message `cli.run_prompt` before the agent starts',
      description:
        "A human token of a person who may act on the session, which must be attached. The activation's first prompt report (`…/prompts`) is matched against it: equal, the run needs no second record; different, that report is a capture gap.",
      request: { params: RefParam, body: { content: { 'application/json': { schema: RunPromptBody } }, required: true } },
      responses: {
        201: ok(z.object({ human_message: HumanMessageSchema }), 'the human message'),
        ...errors,
        403: error('witness-needs-human-token, forbidden'),
        409: error('session-not-attached, run-prompt-exists'),
      },
    }),
    async (c) => {
      const r = await recordRunPrompt(ctx, c.get('caller'), c.req.valid('param').ref, { text: c.req.valid('json').text });
      return json(c, { human_message: serializeHumanMessage(await humanMessageEntry(ctx, r.humanMessageId)) }, 201);
    },
  );
}
