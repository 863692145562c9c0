import pg from 'pg';
import type { TestProject } from 'vitest/node';

export const PG_ADMIN_URL = process.env.WARRANT_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Probes PostgreSQL once for the whole run. In CI (CI=true) an unreachable server fails the
 * run instead of letting every PostgreSQL test skip (docs/design/quality.md).
 */
export default async function setup(project: TestProject): Promise<void> {
  let available = false;
  let reason = '';
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    available = true;
  } catch (error) {
    reason = (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
  if (!available && process.env.CI) {
    throw new Error(`PostgreSQL is required in CI but ${PG_ADMIN_URL} is unreachable: ${reason}`);
  }
  if (!available) process.stderr.write(`\n[warrant tests] PostgreSQL unreachable (${reason}); PostgreSQL suites are SKIPPED, not passed.\n`);
  project.provide('pgAvailable', available);
  project.provide('pgAdminUrl', PG_ADMIN_URL);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAvailable: boolean;
    pgAdminUrl: string;
  }
}
