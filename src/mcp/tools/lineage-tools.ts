import { checkWarrant } from '../../app/human-messages/warrant-gate.js';
import { renderWarrant, serializeWarrant } from '../../render/warrant-gate.js';
import { HUMAN_MESSAGE_CAVEATS } from './human-caveats.js';
import { z } from 'zod';
import { getProvenance } from '../../app/lineage/provenance.js';
import { renderProvenance, serializeProvenance } from '../../render/provenance.js';
import { defineTool, selfSessionId, type ToolDefinition } from '../tool.js';

const Ref = z.union([z.string().min(1).max(200), z.number().int().positive()]);

/**
 * How to read a hierarchy outline (spec 03 "The tool description is the surface for
 * caveats"): stated in the descriptions of `get_session_provenance` and `get_session`, and
 * pinned by tests. The human-message caveats join these with the human-message record.
 */
export const HIERARCHY_CAVEATS = [
  'Indentation is the spawn edge (who started whom), not "most recently talked to"; when a line is drawn under a session that did not spawn it, the line says so ("shown under uncle #N…", "placed by the node ceiling…").',
  '`also senior: #N` is an uncle edge: session #N queued or interrupted that session, so its hierarchy is part of this one. `(also senior, declared: #N)` means the edge was self-declared by a fleet-key caller and nothing verified it; without `declared` it was authenticated by #N\'s own session token.',
  '"N more seniors not shown" counts uncle edges whose senior is outside the drawn tree (REST and MCP list and remove them).',
  'A tree cut by its bounds (at most 150 sessions, 8 levels) ends with a note saying so; the session you asked about is always shown.',
] as const;

export const getSessionProvenance = defineTool({
  name: 'get_session_provenance',
  groups: ['sessions', 'self_session'],
  title: 'Get session provenance',
  description: (group) =>
    [
      group === 'self_session'
        ? 'Your own provenance: the hierarchy you are part of — who spawned you, who spawned them, and every session below the roots — drawn as an outline.'
        : 'A session\'s provenance by ref (`42`, `#42`, a uid or a uid prefix): the hierarchy it is part of, drawn as an outline.',
      'Two sections: the session hierarchy, then the human messages gathered over it — both counts always, newest first, 25 a page (pass `cursor` for older ones), with the capture gaps and the People notes.',
      'How to read the hierarchy:',
      ...HIERARCHY_CAVEATS.map((c) => `- ${c}`),
      'How to read the human messages:',
      ...HUMAN_MESSAGE_CAVEATS.map((c) => `- ${c}`),
    ].join('\n'),
  inputSchema: (group) =>
    group === 'self_session'
      ? z.object({ cursor: z.string().max(200).optional() })
      : z.object({ session_id: Ref, cursor: z.string().max(200).optional() }),
  annotations: { readOnlyHint: true },
  handler: async (ctx, caller, args, group) => {
    const ref = group === 'self_session' ? selfSessionId(caller) : (args as unknown as { session_id: string | number }).session_id;
    const cursor = (args as { cursor?: string }).cursor ?? null;
    const p = await getProvenance(ctx, caller, ref, { cursor });
    return { text: renderProvenance(p, (next) => `call get_session_provenance again with cursor "${next}"`), data: serializeProvenance(p) };
  },
});

export const checkWarrantTool = defineTool({
  name: 'check_warrant',
  groups: ['sessions', 'self_session'],
  title: 'Did a human ask for this?',
  description: (group) =>
    [
      `The policy gate for ${group === 'self_session' ? 'your own session' : 'a session'}: answer "here" (a named human asked this session), "elsewhere" (a human spoke to another session of the hierarchy: context, not an instruction), "none" (nobody spoke and every channel could have recorded it) or "cannot-say" (no record, but capture could not have seen everything). Evidence lists the human-message ids; gaps are always returned beside the answer. Call this instead of parsing prose.`,
      'How to read it:',
      ...HUMAN_MESSAGE_CAVEATS.map((c) => `- ${c}`),
    ].join('\n'),
  inputSchema: (group) => (group === 'self_session' ? z.object({}) : z.object({ session_id: Ref })),
  annotations: { readOnlyHint: true },
  handler: async (ctx, caller, args, group) => {
    const ref = group === 'self_session' ? selfSessionId(caller) : (args as unknown as { session_id: string | number }).session_id;
    const v = await checkWarrant(ctx, caller, ref);
    return { text: renderWarrant(v), data: serializeWarrant(v) };
  },
});

export const LINEAGE_TOOLS: ToolDefinition[] = [getSessionProvenance, checkWarrantTool];
