import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `.ci/run` runs `npm run lint` and `npm run typecheck` before the tests and counts a failure of
 * either as a failed check. This shows both commands' configurations catch a deliberate error:
 * a scratch project holds this repository's eslint.config.js and tsconfig files and a few small
 * files, and the same binaries run over it.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';

function run(bin: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', bin), ...args], { cwd: dir, encoding: 'utf8', timeout: 290_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const eslint = (files: string[]) => run('eslint/bin/eslint.js', ['-f', 'json', ...files]);

describe('the lint and typecheck gates of .ci/run', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'warrant-checks-'));
    for (const f of ['eslint.config.js', 'tsconfig.json', 'tsconfig.check.json', 'package.json']) copyFileSync(join(ROOT, f), join(dir, f));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'test'));
    writeFileSync(
      join(dir, 'src', 'clean.ts'),
      'export async function ping(): Promise<number> {\n  return 1;\n}\nexport async function use(): Promise<number> {\n  return (await ping()) + 1;\n}\n',
    );
    writeFileSync(join(dir, 'src', 'floating.ts'), "import { ping } from './clean.js';\nexport function fire(): void {\n  ping();\n}\n");
    writeFileSync(join(dir, 'src', 'asserted.ts'), 'export function same(n: number): number {\n  return n as number;\n}\n');
    writeFileSync(join(dir, 'src', 'unused.ts'), 'const leftover = 1;\nexport const used = 2;\n');
    writeFileSync(join(dir, 'test', 'typed.test.ts'), "export const n: number = 'not a number';\n");
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes a clean file and fails on a floating promise, an unnecessary assertion and an unused variable', () => {
    const r = eslint(['src/clean.ts', 'src/floating.ts', 'src/asserted.ts', 'src/unused.ts']);
    const byFile = new Map(
      (JSON.parse(r.out) as { filePath: string; messages: { ruleId: string | null }[] }[]).map((f) => [
        f.filePath.slice(dir.length + 1),
        f.messages.map((m) => m.ruleId ?? 'parse-error'),
      ]),
    );
    // the clean file passes, so the failures below are the rules, not the setup
    expect(byFile.get('src/clean.ts')).toEqual([]);
    expect(byFile.get('src/floating.ts')).toContain('@typescript-eslint/no-floating-promises');
    expect(byFile.get('src/asserted.ts')).toContain('@typescript-eslint/no-unnecessary-type-assertion');
    expect(byFile.get('src/unused.ts')).toContain('@typescript-eslint/no-unused-vars');
    expect(r.status).not.toBe(0);
  }, 300_000);

  it('fails typecheck on a type error in a test file (tsconfig.check.json covers test/)', () => {
    const r = run('typescript/bin/tsc', ['-p', 'tsconfig.check.json']);
    expect(r.out).toContain('test/typed.test.ts');
    expect(r.out).toContain('TS2322');
    expect(r.status).not.toBe(0);
  }, 300_000);

  it('.ci/run counts a failed check in its final line, with every test passing', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    // the checks run before the tests and do not stop them
    expect(ci.indexOf('npm run lint ||')).toBeGreaterThan(-1);
    expect(ci.indexOf('npm run typecheck ||')).toBeLessThan(ci.indexOf('npm test'));
    const summary = /node -e '([\s\S]*?)'\n/.exec(ci)?.[1];
    expect(summary).toBeDefined();
    mkdirSync(join(dir, 'test-results'), { recursive: true });
    writeFileSync(join(dir, 'test-results', 'vitest.json'), JSON.stringify({ numPassedTests: 3, numFailedTests: 0, success: true }));
    const line = (checksFailed: string) =>
      spawnSync(process.execPath, ['-e', summary!], { cwd: dir, encoding: 'utf8', env: { ...process.env, CHECKS_FAILED: checksFailed } })
        .stdout.trim()
        .split('\n')
        .pop();
    expect(line('1')).toBe('3 passed, 1 failed');
    expect(line('0')).toBe('3 passed, 0 failed');
  });

  it('.ci/run runs a small, non-strict bench after the tests and counts its failure to run as a failed check', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const step = /^npx tsx bench\/run\.ts [^\n]*\|\|\n\s*\{([^}]*)\}/m.exec(ci);
    expect(step).not.toBeNull();
    expect(step![0]).toContain('--quick');
    expect(step![0]).not.toContain('--strict');
    expect(step![1]).toContain('checks_failed=$((checks_failed + 1))');
    expect(step![1]).toContain('status=1');
    // after the tests, and the count reaches the final line
    expect(step!.index).toBeGreaterThan(ci.indexOf('npm test'));
    const exported = ci.indexOf('export CHECKS_FAILED=$checks_failed', step!.index);
    expect(exported).toBeGreaterThan(step!.index);
    expect(exported).toBeLessThan(ci.indexOf("node -e '"));
  });
});
