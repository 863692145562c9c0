import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('documentation links', () => {
  it.each(files)('every relative link in %s points at a file that exists', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g), ...text.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) expect(existsSync(join(dirname(join(ROOT, file)), link)), `${file} → ${link}`).toBe(true);
  });
  it('the README states both commands of the quick start', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});
