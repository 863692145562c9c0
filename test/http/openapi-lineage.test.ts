import { expect, it } from 'vitest';
import { describeEachDialect } from '../helpers/harness.js';

describeEachDialect('OpenAPI documents the hierarchy reads', (t) => {
  it('lists the provenance and hierarchy routes with the SessionHierarchy schema', async () => {
    const h = t();
    const res = await h.request('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/sessions/{ref}/provenance', '/api/v1/sessions/{ref}/hierarchy']));
    expect(doc.components.schemas.SessionHierarchy.required).toEqual(['origin_id', 'roots', 'truncated', 'note', 'nodes']);
    expect(Object.keys(doc.components.schemas.HierarchyNode.properties)).toEqual(
      expect.arrayContaining(['render_parent_id', 'spawn_edge', 'placement', 'also_senior', 'hidden_seniors', 'is_current', 'drawn_under']),
    );
    const detail = doc.paths['/api/v1/sessions/{ref}'].get.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(detail)).toContain('SessionHierarchy');
  });
});
