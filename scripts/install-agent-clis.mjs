// Installs the pinned real agent CLIs that `npm run test:agents` drives (and the MCP Inspector,
// the MCP ecosystem's own client, test/agents/mcp-inspector.test.ts) into .agent-clis/
// (git-ignored; never in package.json, so `npm ci && npm test` stays lean). A cache between
// runs: it installs only when a package is missing or at another version. Install scripts
// must run: Claude Code's postinstall copies its native binary into bin/claude.exe.
// Prints {"claude": path, "codex": path, ...} as JSON; exits 1 with a reason when it cannot.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The Inspector declares node >=22.19 but runs on Node 20 (the test proves it each run).
export const AGENT_CLI_PINS = { '@anthropic-ai/claude-code': '2.1.332', '@openai/codex': '0.171.0', '@modelcontextprotocol/inspector': '2.12.0' };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.env.WARRANT_AGENT_CLIS_DIR ? resolve(process.env.WARRANT_AGENT_CLIS_DIR) : join(root, '.agent-clis');
const modules = join(dir, 'node_modules');
const paths = {
  claude: join(modules, '@anthropic-ai/claude-code/bin/claude.exe'),
  codex: join(modules, '@openai/codex/bin/codex.js'),
  inspector: join(modules, '@modelcontextprotocol/inspector/clients/launcher/build/index.js'),
};

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Each binary answers --version with its pinned version (the Claude placeholder stub does not). */
function problems() {
  const found = [];
  for (const [name, version] of Object.entries(AGENT_CLI_PINS)) {
    const have = installedVersion(name);
    if (have !== version) found.push(`${name}: ${have ?? 'missing'}, want ${version}`);
  }
  if (found.length > 0) return found;
  const checks = [
    [paths.claude, [], AGENT_CLI_PINS['@anthropic-ai/claude-code']],
    [process.execPath, [paths.codex], AGENT_CLI_PINS['@openai/codex']],
    [process.execPath, [paths.inspector], AGENT_CLI_PINS['@modelcontextprotocol/inspector']],
  ];
  for (const [cmd, pre, version] of checks) {
    const r = spawnSync(cmd, [...pre, '--version'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, CODEX_HOME: join(dir, 'codex-version-home') },
    });
    if (r.status !== 0 || !r.stdout.includes(version))
      found.push(`${pre[0] ?? cmd} --version: ${(r.stdout || r.stderr || String(r.error)).trim().slice(0, 200)}`);
  }
  return found;
}

function install() {
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(dir, 'codex-version-home'), { recursive: true });
  const manifest = {
    name: 'warrant-agent-clis',
    private: true,
    description: 'Pinned agent CLIs for npm run test:agents (installed by scripts/install-agent-clis.mjs)',
    dependencies: AGENT_CLI_PINS,
    allowScripts: { '@anthropic-ai/claude-code': true },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts=false', '--loglevel=error'], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: process.env,
  });
}

const main = resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
if (main) {
  let before = problems();
  const installed = before.length > 0;
  if (installed) {
    process.stderr.write(`install-agent-clis: installing into ${dir} (${before.join('; ')})\n`);
    try {
      install();
    } catch (error) {
      process.stderr.write(`install-agent-clis: npm install failed: ${error.message}\n`);
      process.exit(1);
    }
    before = problems();
  }
  if (before.length > 0) {
    process.stderr.write(`install-agent-clis: the agent CLIs cannot run: ${before.join('; ')}\n`);
    process.exit(1);
  }
  const size = statSync(paths.claude).size;
  process.stdout.write(JSON.stringify({ ...paths, node: process.execPath, versions: AGENT_CLI_PINS, installed, claude_bytes: size }) + '\n');
  if (!existsSync(paths.codex) || !existsSync(paths.inspector)) process.exit(1);
}
