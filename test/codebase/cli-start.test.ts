import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STATIC_IMPORT, staticImportClosure } from './import-graph.js';

/**
 * What every `warrant` command loads before it parses its arguments: the static imports
 * reachable from src/cli/main.ts. The store, the server and their packages load only in the
 * commands that use them (dynamic imports): loading them up front cost each command start about
 * half a second (bench/README.md, "The CLI starts without the server").
 */

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('the CLI starts without the server', () => {
  const { modules, packages } = staticImportClosure(SRC, 'cli/main.ts');

  it('sees the command modules (a sanity floor, so an empty scan cannot pass)', () => {
    expect(modules).toContain('cli/commands/sessions.ts');
    expect(modules).toContain('cli/store-access.ts');
    expect(modules.length).toBeGreaterThan(20);
  });

  it('loads no store, app, server, MCP or web module, and no package but commander, before a command runs (the agent-config helpers are plain files and may)', () => {
    const heavy = modules.filter((m) => /^(store|app|http|mcp|web)\//.test(m) || ['composition.ts', 'server-secret.ts', 'config.ts'].includes(m));
    expect(heavy).toEqual([]);
    expect([...packages]).toEqual(['commander']);
  });

  it('the scan finds a static import of the store and ignores `import type` (negative case)', () => {
    expect([..."import { openStore } from '../store/connect.js';".matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual(['../store/connect.js']);
    expect([..."import type { X } from '../store/connect.js';".matchAll(STATIC_IMPORT)]).toEqual([]);
    expect([..."import { a, type B } from '../store/connect.js';".matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual(['../store/connect.js']);
  });
});
