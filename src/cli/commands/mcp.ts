import type { Command } from 'commander';
import { clientOptionsFromEnv } from '../api-client.js';

/**
 * `warrant mcp [--self]`: the same tools over stdio, as a thin proxy to a Warrant server
 * (WARRANT_URL + token), so permissions and renderers live in one place (docs/api.md).
 */
export function registerMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP tools over stdio, proxied to a Warrant server (WARRANT_URL)')
    .option('--self', 'the self_session tools, with WARRANT_SESSION_TOKEN')
    .action(async (opts: { self?: boolean }) => {
      const { baseUrl, token: anyToken } = clientOptionsFromEnv(process.env);
      const token = opts.self ? process.env.WARRANT_SESSION_TOKEN || null : anyToken;
      if (!token && opts.self) {
        // outside `warrant run` the agent's MCP entry is a silent no-op: a server with no tools
        const { Server } = await import('@modelcontextprotocol/server');
        const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
        serveStdio(() => {
          const server = new Server({ name: 'warrant', version: '0.1.0' }, { capabilities: { tools: {} } });
          server.setRequestHandler('tools/list', async () => ({ tools: [] }));
          return server;
        });
        await new Promise(() => {});
      }
      if (!token) {
        process.stderr.write(`warrant mcp: no credential — set ${opts.self ? 'WARRANT_SESSION_TOKEN' : 'WARRANT_TOKEN or WARRANT_SESSION_TOKEN'}.\n`);
        process.exit(2);
      }
      const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      const { Server } = await import('@modelcontextprotocol/server');
      const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
      const { MCP_SERVER_NAMES } = await import('../../mcp/server.js');
      const url = new URL(opts.self ? '/mcp/self' : '/mcp', baseUrl + '/');
      let remote: Promise<InstanceType<typeof Client>> | null = null;
      const connect = (): Promise<InstanceType<typeof Client>> => {
        remote ??= (async () => {
          const client = new Client({ name: 'warrant-mcp-stdio-proxy', version: '0.1.0' });
          await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
          return client;
        })().catch((error: unknown) => {
          remote = null;
          throw error;
        });
        return remote;
      };
      const group = opts.self ? 'self_session' : 'sessions';
      serveStdio(
        () => {
          const server = new Server({ name: MCP_SERVER_NAMES[group], version: '0.1.0' }, { capabilities: { tools: {} } });
          server.setRequestHandler('tools/list', async (request) => (await connect()).listTools(request.params));
          server.setRequestHandler('tools/call', async (request) => (await connect()).callTool(request.params));
          return server;
        },
        { onerror: (error) => process.stderr.write(`warrant mcp: ${error.message}\n`) },
      );
      await new Promise(() => {});
    });
}
