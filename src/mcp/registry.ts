import { SESSION_TOOLS } from './tools/session-tools.js';
import { INBOX_TOOLS } from './tools/inbox-tools.js';
import { LINEAGE_TOOLS } from './tools/lineage-tools.js';
import { MESSAGE_TOOLS } from './tools/message-tools.js';
import { AUDIT_TOOLS } from './tools/audit-tools.js';
import { FOOTPRINT_TOOLS } from './tools/footprint-tools.js';
import type { ToolDefinition } from './tool.js';

/** Every MCP tool; each names the groups it serves. Later capabilities append theirs. */
export const ALL_TOOLS: ToolDefinition[] = [...SESSION_TOOLS, ...INBOX_TOOLS, ...LINEAGE_TOOLS, ...MESSAGE_TOOLS, ...AUDIT_TOOLS, ...FOOTPRINT_TOOLS];
