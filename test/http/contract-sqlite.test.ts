import { describe, expect, it } from 'vitest';
import { contractSuite, NOT_EXERCISED } from '../helpers/contract/contract-suite.js';
import { openHarness } from '../helpers/harness.js';

/** The OpenAPI contract on SQLite (test/helpers/contract/contract-suite.ts says what it proves). */
contractSuite('sqlite');

describe('every served REST route is in the OpenAPI document', () => {
  it('each /api/v1 route the app serves is a documented operation, or listed in NOT_EXERCISED with why', async () => {
    const h = await openHarness('sqlite');
    try {
      const doc = (await h.request('GET', '/api/v1/openapi.json', { token: null })).body;
      const documented = new Set(
        Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)),
      );
      const served = new Set(
        h.service.app.routes
          .filter((r) => r.path.startsWith('/api/v1/') && r.method !== 'ALL')
          .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
          .filter((key) => key !== 'GET /api/v1/openapi.json'),
      );
      const missing = [...served].filter((key) => !documented.has(key) && !NOT_EXERCISED[key]);
      expect(
        missing
          .map(
            (key) =>
              `${key} is served but not in the OpenAPI document: register it with createRoute (src/http/routes/…), or list it in NOT_EXERCISED (test/helpers/contract/contract-suite.ts) with why`,
          )
          .join('\n'),
      ).toBe('');
    } finally {
      await h.close();
    }
  });
});
