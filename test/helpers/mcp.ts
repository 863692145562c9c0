import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Harness } from './harness.js';

/** The MCP SDK's real client talking to our real server, in process (no socket). */
export async function mcpClient(h: Harness, path: '/mcp' | '/mcp/self', token: string): Promise<Client> {
  const client = new Client({ name: 'warrant-tests', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
      fetch: async (url, init) => h.service.app.request(url, init),
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Calls a tool; returns its structured content, text and error flag. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: any; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: unknown;
    content?: { type: string; text?: string }[];
  };
  return { isError: r.isError === true, data: r.structuredContent, text: (r.content ?? []).map((c) => c.text ?? '').join('\n') };
}
