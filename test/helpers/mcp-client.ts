import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Harness } from './harness.js';

/** The MCP SDK's real client, talking to the real server handler in-process (no socket). */
export async function mcpClient(h: Harness, token: string, path: '/mcp' | '/mcp/self' = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'warrant-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${path}`), {
    fetch: async (url, init) => h.service.app.request(String(url), init),
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolResult {
  isError: boolean;
  text: string;
  data: any;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
    structuredContent?: unknown;
  };
  return {
    isError: r.isError === true,
    text: r.content.map((c) => c.text ?? '').join('\n'),
    data: r.structuredContent,
  };
}

export function toolText(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}
