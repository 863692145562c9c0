import { expect, it } from 'vitest';
import { openHarness } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';

type Schema = Record<string, unknown>;

/** Each leaf type of a property (through anyOf/oneOf), with what it fails to bound. */
function unbounded(schema: Schema): string[] {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return branches.flatMap(unbounded);
  if (schema.enum !== undefined || schema.const !== undefined) return [];
  const type = schema.type;
  if (type === 'integer' || type === 'number') {
    const problems = [];
    if (type === 'number') problems.push('a number, not an integer');
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) problems.push('no minimum');
    if (schema.maximum === undefined || (schema.maximum as number) > Number.MAX_SAFE_INTEGER) problems.push('no maximum');
    return problems;
  }
  if (type === 'string') return schema.maxLength === undefined ? ['a string without maxLength'] : [];
  if (type === 'array') return schema.maxItems === undefined ? ['an array without maxItems'] : unbounded((schema.items ?? {}) as Schema);
  // a caller's own JSON object (custom_metadata) is bounded by the request's 1 MiB only
  return [];
}

/**
 * Real bounds on every tool input, as the real SDK client lists them (docs/api.md "MCP"): a
 * model is never told a range the schema does not hold, and every session ref is the one wire
 * rule (RefValue: a positive id a JSON number holds exactly, or 1–200 characters of ref text).
 */
it('every MCP tool input states its real bounds, ttl is 1–86,400, and every session ref has the one RefValue schema', async () => {
  const h = await openHarness('sqlite');
  try {
    const live = await h.create(h.fleetKey, { title: 'bounds', attach: true });
    const surfaces = [
      ['/mcp', await mcpClient(h, h.fleetKey)],
      ['/mcp/self', await mcpClient(h, live.session_token, '/mcp/self')],
    ] as const;
    const problems: string[] = [];
    const refs = new Map<string, string>();
    let ttl: Schema | undefined;
    for (const [surface, client] of surfaces) {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(3);
      for (const tool of tools) {
        for (const [name, prop] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, Schema>)) {
          for (const p of unbounded(prop)) problems.push(`${surface} ${tool.name}.${name}: ${p}`);
          const { description: _d, ...shape } = prop;
          // session refs by name; `to` is one in the message tools (get_audit_proof's `to` is a tree size)
          const isRef = /(^|_)session_id$|^parent$/.test(name) || (name === 'to' && tool.name !== 'get_audit_proof');
          if (isRef) refs.set(`${surface} ${tool.name}.${name}`, JSON.stringify(shape));
          if (tool.name === 'send_message' && name === 'ttl') ttl = prop;
        }
      }
      await client.close();
    }
    expect(problems).toEqual([]);
    expect(ttl).toMatchObject({ type: 'integer', minimum: 1, maximum: 86_400 });
    expect(refs.get('/mcp start_session.parent_session_id')).toBeDefined();
    const shapes = new Set(refs.values());
    expect([...refs].filter(([, s]) => s !== refs.get('/mcp action_session.session_id')).map(([k, s]) => `${k}: ${s}`)).toEqual([]);
    expect(shapes.size).toBe(1);
  } finally {
    await h.close();
  }
});
