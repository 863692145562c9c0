import type { MiddlewareHandler } from 'hono';
import { invalidRequest, type WarrantError } from '../core/errors.js';
import { messageRefusal } from '../core/message-refusals.js';
import { findInputProblem, type InputProblem } from '../core/wire-input.js';

/**
 * Agent messages answer ill-formed input in their own vocabulary (`envelope-invalid`, with the
 * field and reason), on REST and MCP alike; every other input is `invalid-request`.
 */
const OWN_REFUSALS: Record<string, (problem: InputProblem) => WarrantError> = {
  'POST /api/v1/messages': envelopeInvalid,
  'tool send_message': envelopeInvalid,
};

function envelopeInvalid(problem: InputProblem): WarrantError {
  const reason = problem.message.replace(/\.$/, '');
  return messageRefusal('envelope-invalid', `${problem.field}: ${reason}.`, { field: problem.field, reason });
}

/** The refusal for an input problem found at `where` (`POST /api/v1/…` or `tool <name>`). */
export function inputRefusal(problem: InputProblem, where: string): WarrantError {
  return OWN_REFUSALS[where]?.(problem) ?? invalidRequest(problem.field, problem.message);
}

/**
 * The one check every REST input passes before its route (docs/api.md "Input limits"): JSON
 * bodies and query values must be well-formed Unicode without U+0000, nested at most 32 deep.
 * MCP tool arguments pass the same check (mcp/server.ts), web forms theirs (web/web-request.ts).
 */
export function inputGuard(): MiddlewareHandler {
  return async (c, next) => {
    const where = `${c.req.method} ${c.req.path}`;
    const queries = Object.entries(c.req.queries());
    if (queries.length > 0) {
      const problem = findInputProblem(Object.fromEntries(queries.map(([k, vs]) => [k, vs.length === 1 ? vs[0] : vs])));
      if (problem) throw inputRefusal(problem, where);
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && /\bjson\b/i.test(c.req.header('content-type') ?? '')) {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return next(); // not JSON: the route's own validation answers malformed-json
      }
      const problem = findInputProblem(body);
      if (problem) throw inputRefusal(problem, where);
    }
    return next();
  };
}
