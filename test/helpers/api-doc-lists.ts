import type { Harness } from './harness.js';
import { mcpClient } from './mcp-client.js';

/**
 * docs/api.md's route and tool lists, rendered from the live catalogue: the OpenAPI document the
 * server serves and the tools its MCP surfaces list. test/docs/api-lists.test.ts compares them
 * with the file; `node scripts/gen-api-docs.mjs` writes them between the markers.
 */
export const MARKERS = {
  routes: ['<!-- generated:rest-routes (node scripts/gen-api-docs.mjs) -->', '<!-- /generated:rest-routes -->'],
  tools: ['<!-- generated:mcp-tools (node scripts/gen-api-docs.mjs) -->', '<!-- /generated:mcp-tools -->'],
} as const;

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

export async function renderRouteList(h: Harness): Promise<string> {
  type Operation = { operationId?: string; summary?: string; security?: unknown[] };
  const doc = (await h.request('GET', '/api/v1/openapi.json', { token: null })).body as { paths: Record<string, Record<string, Operation>> };
  const rows = ['| method and path | operation | does |', '| --- | --- | --- |'];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const summary = op.summary ?? '';
      const open = Array.isArray(op.security) && op.security.length === 0 && !/no (credential|bearer)/.test(summary) ? ' (no bearer token)' : '';
      rows.push(`| \`${method.toUpperCase()} ${path}\` | \`${op.operationId ?? '—'}\` | ${cell(summary)}${open} |`);
    }
  }
  return rows.join('\n');
}

export async function renderToolList(h: Harness): Promise<string> {
  const live = await h.create(h.fleetKey, { title: 'api docs', attach: true });
  const surfaces = [
    ['sessions', await mcpClient(h, h.fleetKey)],
    ['self_session', await mcpClient(h, live.session_token, '/mcp/self')],
  ] as const;
  const tools = new Map<string, { groups: string[]; title: string; inputs: Map<string, string[]>; readOnly: boolean }>();
  for (const [group, client] of surfaces) {
    for (const t of (await client.listTools()).tools) {
      const readOnly = t.annotations?.readOnlyHint === true;
      const entry = tools.get(t.name) ?? { groups: [] as string[], title: t.title ?? t.name, inputs: new Map<string, string[]>(), readOnly };
      entry.groups.push(group);
      for (const input of Object.keys(t.inputSchema.properties ?? {})) entry.inputs.set(input, [...(entry.inputs.get(input) ?? []), group]);
      tools.set(t.name, entry);
    }
    await client.close();
  }
  const rows = ['| tool | served on | does | inputs |', '| --- | --- | --- | --- |'];
  for (const [name, t] of tools) {
    const groups = t.groups.length === 2 ? 'both' : t.groups[0]!;
    const inputs = [...t.inputs].map(([input, on]) => (on.length < t.groups.length ? `\`${input}\` (${on[0]} only)` : `\`${input}\``)).join(', ') || '—';
    rows.push(`| \`${name}\` | ${groups} | ${cell(t.title)}${t.readOnly ? ' (read-only)' : ''} | ${inputs} |`);
  }
  return rows.join('\n');
}

/** `text` with the block between a marker pair replaced; throws when the markers are missing. */
export function replaceBetween(text: string, [open, close]: readonly [string, string], body: string): string {
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks the markers ${open} … ${close}`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}
