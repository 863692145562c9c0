import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/kernel.js';
import { hierarchyOf } from '../../app/lineage/index.js';
import { getProvenance } from '../../app/lineage/index.js';
import { checkWarrant } from '../../app/human-messages/index.js';
import { provSource } from '../../app/exports/index.js';
import { renderProvJson } from '../../render/prov-json.js';
import { renderWarrant, serializeWarrant } from '../../render/warrant-gate.js';
import { serializeHierarchy } from '../../render/hierarchy-json.js';
import { renderHierarchyOutline } from '../../render/hierarchy-outline.js';
import { renderProvenance, serializeProvenance } from '../../render/provenance.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { jsonOrMarkdown } from '../responses.js';
import { Cursor, Limit } from '../wire-rules.js';
import { ErrorSchema, FormatQuery, HierarchySchema, ProvenanceSchema, RefParam, WarrantSchema } from '../schemas.js';

const errors = {
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  403: { description: 'not allowed', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session (or not visible)', content: { 'application/json': { schema: ErrorSchema } } },
};

const withMarkdown = jsonOrMarkdown;

/** A W3C PROV-JSON document (docs/integrations.md): its namespace prefixes and one map per PROV record kind. */
const ProvJsonDocument = z
  .object({ prefix: z.record(z.string(), z.string()) })
  .catchall(z.record(z.string(), z.record(z.string(), z.unknown())))
  .openapi('ProvJsonDocument');

/** The hierarchy and provenance reads (docs/concepts.md, docs/human-messages.md, docs/api.md); every surface renders the same structure. */
export function registerLineageRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/provenance',
      operationId: 'getSessionProvenance',
      summary: "A session's provenance: its hierarchy and the human-message record gathered over it",
      description:
        'Markdown (`format=markdown`) is the same rendering MCP `get_session_provenance` and `warrant provenance` print. Indentation is the spawn edge unless the line says otherwise; `also senior: #N` is an uncle edge (`declared` when nothing verified it). A truncated tree says so, with its bounds. `format=prov-json` gives a W3C PROV-JSON document of the same hierarchy and record. Human messages come newest first, 25 a page: pass `next_cursor` back as `cursor` for older ones; the counts are of the whole record; capture gaps say where absence cannot be read as an answer.',
      request: {
        params: RefParam,
        query: z.object({
          format: z.enum(['json', 'markdown', 'prov-json']).optional(),
          cursor: Cursor.optional(),
          limit: Limit.optional(),
        }),
      },
      responses: {
        200: withMarkdown(z.union([ProvenanceSchema, ProvJsonDocument]), 'the provenance (`format=prov-json`: a W3C PROV-JSON document)'),
        ...errors,
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const ref = c.req.valid('param').ref;
      // W3C PROV-JSON (docs/integrations.md): the whole hierarchy and every human message as a PROV document
      if (q.format === 'prov-json') {
        // one map per PROV record kind beside `prefix`: a catchall whose type the renderer's Record<string, unknown> cannot spell
        const doc = renderProvJson(await provSource(ctx, c.get('caller'), ref)) as z.input<typeof ProvJsonDocument>;
        return json(c, doc, 200, { 'content-type': 'application/json; charset=utf-8' });
      }
      const p = await getProvenance(ctx, c.get('caller'), ref, { cursor: q.cursor ?? null, ...(q.limit ? { limit: q.limit } : {}) });
      if (q.format === 'markdown')
        return markdown(
          c,
          renderProvenance(p, (cursor) => `GET /api/v1/sessions/${ref}/provenance?format=markdown&cursor=${cursor}`),
        );
      return json(c, serializeProvenance(p));
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/warrant',
      operationId: 'checkSessionWarrant',
      summary: 'The policy gate: did a named human ask for this — here, elsewhere, none, or cannot say',
      description:
        'Decided in order: `here` when a message that was not withdrawn is on this session; else `elsewhere` when one is elsewhere in the hierarchy; else `none` only when no capture gap is listed and the walk was not cut; else `cannot-say`. `evidence` lists the message ids; the gaps are always returned beside the answer.',
      request: { params: RefParam, query: FormatQuery },
      responses: { 200: withMarkdown(WarrantSchema, 'the answer with its evidence and gaps'), ...errors },
    }),
    async (c) => {
      const v = await checkWarrant(ctx, c.get('caller'), c.req.valid('param').ref);
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderWarrant(v));
      return json(c, serializeWarrant(v));
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/hierarchy',
      operationId: 'getSessionHierarchy',
      summary: "A session's hierarchy alone (`warrant sessions tree`)",
      description: 'The same structure as `session_hierarchy` in `GET /api/v1/sessions/{ref}`; `format=markdown` gives the outline.',
      request: { params: RefParam, query: FormatQuery },
      responses: { 200: withMarkdown(HierarchySchema, 'the hierarchy'), ...errors },
    }),
    async (c) => {
      const h = await hierarchyOf(ctx, c.get('caller'), c.req.valid('param').ref);
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderHierarchyOutline(h));
      return json(c, serializeHierarchy(h));
    },
  );
}
