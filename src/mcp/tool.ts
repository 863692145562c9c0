import type { z } from 'zod';
import type { Caller } from '../app/kernel.js';
import type { AppContext } from '../app/kernel.js';

export type ToolGroup = 'sessions' | 'self_session';

/**
 * What a tool returns: the shared markdown rendering, and the same data as JSON. `notes` are
 * the rendering's sentences a model must not miss (gaps, absence, truncation, paging): the
 * agents hand the model `structuredContent` instead of the text, so the server puts them
 * first in it, as `notes` (docs/api.md "MCP").
 */
interface ToolOutput {
  text: string;
  data: Record<string, unknown>;
  notes?: string[];
}

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  groups: readonly ToolGroup[];
  title: string;
  /** pinned by tests where it carries caveats (docs/human-messages.md) */
  description: (group: ToolGroup) => string;
  inputSchema: (group: ToolGroup) => S;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
  handler: (ctx: AppContext, caller: Caller, args: z.infer<S>, group: ToolGroup) => Promise<ToolOutput>;
}

export function defineTool<S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition<z.ZodObject> {
  return tool;
}

/** On the self_session surface every tool acts on the bound session only. */
export function selfSessionId(caller: Caller): number {
  if (caller.principal.kind !== 'session') throw new Error('self_session tools need a session token');
  return caller.principal.sessionId;
}
