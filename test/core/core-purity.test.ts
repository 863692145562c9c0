import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = join(import.meta.dirname, '../../src/core');
const FORBIDDEN = /from\s+['"](node:[^'"]+|kysely[^'"]*|hono[^'"]*|@hono\/[^'"]+|pg|better-sqlite3|pino)['"]|import\(\s*['"](node:|kysely|hono|pg)/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('src/core stays pure (ARCHITECTURE.md)', () => {
  const all = files(CORE);
  it('has files to check', () => {
    expect(all.length).toBeGreaterThan(5);
  });
  it.each(all.map((f) => [f.slice(CORE.length + 1), f]))('%s imports nothing from node:, kysely, hono or pg', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(FORBIDDEN);
    // and no Node globals that would tie it to the server
    expect(text).not.toMatch(/\b(process\.|Buffer\.|require\()/);
  });
  it('the check itself catches a forbidden import', () => {
    expect("import { sql } from 'kysely';").toMatch(FORBIDDEN);
    expect("import { x } from 'node:crypto';").toMatch(FORBIDDEN);
    expect("import pg from 'pg';").toMatch(FORBIDDEN);
  });
});
