import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Harness } from './harness.js';

/**
 * The MCP SDK's real client, talking to our real MCP server in-process (the transport's
 * fetch goes to the Hono app, no socket).
 */
export async function mcpClient(h: Harness, token: string, path: '/mcp' | '/mcp/self' = '/mcp'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (url, init) => h.service.app.request(String(url), init as RequestInit),
  });
  const client = new Client({ name: 'warrant-tests', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

export function toolText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
}
