import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppContext } from '../../app/context.js';
import { hierarchyOf } from '../../app/lineage/hierarchy.js';
import { getProvenance } from '../../app/lineage/provenance.js';
import { serializeHierarchy } from '../../render/hierarchy-json.js';
import { renderHierarchyOutline } from '../../render/hierarchy-outline.js';
import { renderProvenance, serializeProvenance } from '../../render/provenance.js';
import { json, markdown, route, type HttpEnv } from '../env.js';
import { ErrorSchema, FormatQuery, HierarchySchema, ProvenanceSchema, RefParam } from '../schemas.js';

const errors = {
  401: { description: 'no or bad credential', content: { 'application/json': { schema: ErrorSchema } } },
  404: { description: 'no such session (or not visible)', content: { 'application/json': { schema: ErrorSchema } } },
};

const withMarkdown = (schema: typeof HierarchySchema | typeof ProvenanceSchema, description: string) => ({
  description,
  content: { 'application/json': { schema }, 'text/markdown': { schema: { type: 'string' as const } } },
});

/** The hierarchy and provenance reads (spec 02, 03, 06); every surface renders the same structure. */
export function registerLineageRoutes(app: OpenAPIHono<HttpEnv>, ctx: AppContext): void {
  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/provenance',
      summary: "A session's provenance: its hierarchy (the human-message record joins it)",
      description:
        'Markdown (`format=markdown`) is the same rendering MCP `get_session_provenance` and `warrant provenance` print. Indentation is the spawn edge unless the line says otherwise; `also senior: #N` is an uncle edge (`declared` when nothing verified it). A truncated tree says so, with its bounds.',
      request: { params: RefParam, query: FormatQuery },
      responses: { 200: withMarkdown(ProvenanceSchema, 'the provenance'), ...errors },
    }),
    async (c) => {
      const p = await getProvenance(ctx, c.get('caller'), c.req.valid('param').ref);
      if (c.req.valid('query').format === 'markdown') return markdown(c, renderProvenance(p));
      return json(c, serializeProvenance(p));
    },
  );

  route(
    app,
    createRoute({
      method: 'get',
      path: '/api/v1/sessions/{ref}/hierarchy',
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
