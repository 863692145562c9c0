import { McpServer, type ListToolsResult } from '@modelcontextprotocol/server';
import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';
import { toolErrorResult } from '../http/errors.js';
import { inputRefusal } from '../http/input-guard.js';
import { findInputProblem } from '../core/wire-input.js';
import { ALL_TOOLS } from './registry.js';
import type { ToolGroup } from './tool.js';

export const MCP_SERVER_NAMES: Record<ToolGroup, string> = { sessions: 'warrant-sessions', self_session: 'warrant-self-session' };

/** Where each request's caller rides: the `authInfo` the mount passes with the request. */
interface CallerInfo {
  http?: { authInfo?: { extra?: Record<string, unknown> } };
}

/** The caller of the request a tool runs in, from its own `authInfo` (never from the instance). */
function callerOf(info: unknown): Caller {
  const caller = (info as CallerInfo | undefined)?.http?.authInfo?.extra?.caller as Caller | undefined;
  // the mount authenticates every request before it reaches the SDK: no caller is a wiring bug
  if (!caller) throw new Error('MCP request without an authenticated caller');
  return caller;
}

/**
 * One MCP server for a tool group. It holds no caller: each tool call reads the caller of its
 * own request (the bearer token the mount verified, passed as `authInfo`), never an MCP
 * session id or a tool argument (docs/api.md) — so one instance can serve any caller of the
 * group, one request after another.
 */
export function buildMcpServer(ctx: AppContext, group: ToolGroup, listing?: ToolListing): McpServer {
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
      async (args: unknown, info: unknown) => {
        try {
          const caller = callerOf(info);
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
  // the SDK converts every tool's schema to JSON Schema on each tools/list: answer from the group's listing instead
  if (listing) server.server.setRequestHandler('tools/list', () => listing.of(group));
  return server;
}

/** What tools/list answers for a group: the tools never change while the process runs. */
type ToolList = ListToolsResult;

/**
 * Each group's tools/list result, computed once per process: the same fields and the same
 * schema conversion the SDK applies per request (JSON Schema 2020-12 of each input schema, as
 * an object). test/mcp/server-reuse.test.ts compares it with what an unpatched SDK server lists.
 */
class ToolListing {
  private readonly lists = new Map<ToolGroup, ToolList>();
  private readonly texts = new Map<ToolGroup, string>();

  /** The result serialised once (an 18 KB list cost a tenth of a tools/list request to stringify). */
  json(group: ToolGroup): string {
    let text = this.texts.get(group);
    if (text === undefined) {
      text = JSON.stringify(this.of(group));
      this.texts.set(group, text);
    }
    return text;
  }

  of(group: ToolGroup): ToolList {
    let list = this.lists.get(group);
    if (!list) {
      list = { tools: ALL_TOOLS.filter((t) => t.groups.includes(group)).map((t) => listedTool(t, group)) };
      this.lists.set(group, list);
    }
    return list;
  }
}

function listedTool(tool: (typeof ALL_TOOLS)[number], group: ToolGroup): ToolList['tools'][number] {
  const schema = tool.inputSchema(group)['~standard'] as unknown as { jsonSchema: { input(o: { target: string }): Record<string, unknown> } };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description(group),
    inputSchema: { ...schema.jsonSchema.input({ target: 'draft-2020-12' }), type: 'object' },
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/**
 * What a served exchange leaves on an SDK instance about the client that sent it (its declared
 * info and capabilities, the protocol version it negotiated, its log level): cleared before the
 * instance serves anyone else, so it starts each exchange as a fresh one would.
 */
interface ExchangeState {
  _clientCapabilities?: unknown;
  _clientVersion?: unknown;
  _negotiatedProtocolVersion?: unknown;
  _loggingLevels?: Map<unknown, unknown>;
}

/** Idle instances kept per group and era; more are built under concurrency and dropped after. */
const MAX_IDLE = 32;

/**
 * The MCP servers of one node, reused across requests (issue: building one per request capped
 * MCP near 550 `tools/list`/s). The SDK serves each HTTP exchange on an instance that is not
 * connected elsewhere, so this keeps a few idle instances per tool group and protocol era:
 * an exchange takes one, and the instance comes back when its exchange closes. Tool schemas are
 * converted once per process (`ToolListing`). Identity is per request (see `buildMcpServer`).
 */
export class McpServerPool {
  private readonly idle = new Map<string, McpServer[]>();
  private readonly listing = new ToolListing();
  /** instances built and exchanges served from a reused instance, for tests and the bench */
  readonly stats = { built: 0, reused: 0 };

  constructor(private readonly ctx: AppContext) {}

  /** A group's tools/list result as JSON text, serialised once per process. */
  toolListJson(group: ToolGroup): string {
    return this.listing.json(group);
  }

  acquire(group: ToolGroup, era: string): McpServer {
    const key = `${group}|${era}`;
    const list = this.idle.get(key) ?? [];
    this.idle.set(key, list);
    for (;;) {
      const server = list.pop();
      if (!server) break;
      if (server.server.transport !== undefined) continue; // still serving: never hand it out twice
      this.stats.reused++;
      this.lease(server, list);
      return server;
    }
    const server = buildMcpServer(this.ctx, group, this.listing);
    this.stats.built++;
    this.lease(server, list);
    return server;
  }

  /** Returns the instance to its list once the exchange it is about to serve closes. */
  private lease(server: McpServer, list: McpServer[]): void {
    server.server.onclose = () => {
      server.server.onclose = undefined;
      const state = server.server as unknown as ExchangeState;
      state._clientCapabilities = undefined;
      state._clientVersion = undefined;
      state._negotiatedProtocolVersion = undefined;
      state._loggingLevels?.clear();
      if (list.length < MAX_IDLE && !list.includes(server)) list.push(server);
    };
  }
}
