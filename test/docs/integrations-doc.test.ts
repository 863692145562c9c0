import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeClaudeMcpServers, mergeClaudeSettings, warrantPaths } from '../../src/integrations/agent-config.js';
import { mergeCodexToml } from '../../src/integrations/codex-config.js';

const ROOT = resolve(import.meta.dirname, '../..');
const doc = readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8');
const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const PROJECT = '/home/me/proj';

/** The doc's placeholders, filled in with what integrate writes from this checkout. */
function fill(text: string): string {
  const paths = warrantPaths();
  return text.replaceAll('<node>', paths.node).replaceAll('<warrant>', ROOT);
}

// docs/integrations.md shows the exact configuration integrate writes; these keep it so.
describe('docs/integrations.md shows what integrate writes', () => {
  it('the .mcp.json entry', () => {
    const shown = blocks('json').find((b) => b.includes('"mcpServers"'))!;
    expect(JSON.parse(fill(shown))).toEqual(JSON.parse(mergeClaudeMcpServers(null, '.mcp.json').text));
  });
  it('the .claude/settings.json permissions and six hooks', () => {
    const shown = blocks('json').find((b) => b.includes('"permissions"'))!;
    expect(JSON.parse(fill(shown))).toEqual(JSON.parse(mergeClaudeSettings(null, { deniedDataDir: `${PROJECT}/.warrant` }).text));
  });
  it("Codex's config.toml", () => {
    const shown = blocks('toml').find((b) => b.includes('[mcp_servers.warrant]'))!;
    expect(fill(shown)).toBe(mergeCodexToml(null).text);
  });
  it("every check in doctor's table is one doctor makes", () => {
    const table = doc.slice(doc.indexOf('| check | passes when |'));
    const names = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(5);
    const source = readdirSync(join(ROOT, 'src/cli/doctor'))
      .map((f) => readFileSync(join(ROOT, 'src/cli/doctor', f), 'utf8'))
      .join('\n');
    for (const name of names) expect(source, name).toMatch(new RegExp(`(pass|fail|skip)\\('${name}'`));
  });
});
