import { McpServer } from '@modelcontextprotocol/server';
import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { toolErrorResult } from '../http/errors.js';
import { inputRefusal } from '../http/input-guard.js';
import { findInputProblem } from '../core/wire-input.js';
import { ALL_TOOLS } from './registry.js';
import type { ToolGroup } from './tool.js';

export const MCP_SERVER_NAMES: Record<ToolGroup, string> = { sessions: 'warrant-sessions', self_session: 'warrant-self-session' };

/**
 * One stateless MCP server per request: identity comes from the bearer token (the caller),
 * never from an MCP session id or a tool argument (docs/api.md).
 */
export function buildMcpServer(ctx: AppContext, caller: Caller, group: ToolGroup): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAMES[group], version: '0.1.0' }, { capabilities: { tools: {} } });
  for (const tool of ALL_TOOLS) {
    if (!tool.groups.includes(group)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description(group),
        inputSchema: tool.inputSchema(group),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      async (args: unknown) => {
        try {
          // the same input check as REST (http/input-guard.ts), before any tool sees the arguments
          const problem = findInputProblem(args);
          if (problem) throw inputRefusal(problem, `tool ${tool.name}`);
          const out = await tool.handler(ctx, caller, args as never, group);
          // `notes` first: the one place a result's must-read sentences join its data
          const structuredContent = out.notes === undefined ? out.data : { notes: out.notes, ...out.data };
          return { content: [{ type: 'text' as const, text: out.text }], structuredContent };
        } catch (error) {
          // the same tokens and body as REST (docs/api.md)
          return toolErrorResult(error, ctx.logger, tool.name);
        }
      },
    );
  }
  return server;
}
