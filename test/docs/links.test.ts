import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const markdownIn = (folder: string) =>
  readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `${folder}/${f}`);
const files = ['README.md', ...markdownIn('docs'), ...markdownIn('docs/design')];

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
