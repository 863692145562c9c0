/**
 * Regenerates test/fixtures/agent-hooks/: drives each real CLI once under `warrant run`
 * (prompt → Warrant MCP call → built-in subagent that also calls it → stop) with a capturing
 * hook on every event, and saves each event's payload exactly as the CLI sent it, with tokens
 * and keys replaced. Run after bumping a pinned CLI version:
 *   npm run build && node scripts/install-agent-clis.mjs && npx tsx test/agents/capture-fixtures.mts
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AGENT_CLI_PINS } from '../../scripts/install-agent-clis.mjs';
import {
  CAPTURE_HOOK,
  CLAUDE_BIN,
  CODEX_JS,
  readCaptured,
  requireAgentClis,
  setupClaude,
  setupCodex,
  warrantMcpCommand,
  type CapturedHook,
} from './agent-clis.js';
import { startModelEndpoint, when, type Step } from './model-endpoint.js';
import { startWarrant } from './warrant-run.js';

const OUT = resolve(import.meta.dirname, '../fixtures/agent-hooks');
const SCRATCH = '/tmp/warrant-agent-fixtures';

const CLAUDE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'PermissionRequest',
  'PermissionDenied',
  'Notification',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'StopFailure',
  'SessionEnd',
  'PreCompact',
  'PostCompact',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'ConfigChange',
  'InstructionsLoaded',
  'CwdChanged',
  'DirectoryAdded',
  'MessageDisplay',
  'Elicitation',
  'ElicitationResult',
];
const CODEX_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PreCompact',
  'PostCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'SessionEnd',
  'Interrupt',
];

const capture = (label: string) => `"${process.execPath}" "${CAPTURE_HOOK}" ${label}`;
const RELEVANT_ENV = /^(WARRANT_|CLAUDE|CODEX_|AI_AGENT|ANTHROPIC_BASE_URL)/;

function sanitize(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/wrt_[a-z]+_[A-Za-z0-9_-]+/g, (t) => `${t.split('_').slice(0, 2).join('_')}_REDACTED`)
      .replace(/"(CLAUDE_CODE_MESSAGING_TOKEN)":"[^"]*"/g, '"$1":"REDACTED"')
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'),
  );
}

function envSeen(h: CapturedHook): Record<string, string> {
  return Object.fromEntries(
    Object.entries(h.env)
      .filter(([k]) => RELEVANT_ENV.test(k))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

function save(cli: string, hooks: CapturedHook[], variants: Record<string, (h: CapturedHook) => boolean>, meta: Record<string, unknown>): void {
  const seen = new Set<string>();
  for (const h of hooks) {
    if (seen.has(h.label)) continue;
    seen.add(h.label);
    writeFileSync(join(OUT, `${cli}-${h.label}.json`), JSON.stringify(sanitize(h.payload), null, 2) + '\n');
  }
  for (const [name, pick] of Object.entries(variants)) {
    const h = hooks.find(pick);
    if (!h) throw new Error(`${cli}: no hook call for the variant ${name}`);
    writeFileSync(join(OUT, `${cli}-${name}.json`), JSON.stringify(sanitize(h.payload), null, 2) + '\n');
  }
  const summary = {
    cli,
    ...meta,
    order: hooks.map((h) => (h.payload && typeof h.payload === 'object' && 'agent_id' in h.payload ? `${h.label} (agent_id)` : h.label)),
    env_seen_by_hooks: sanitize(envSeen(hooks[0]!)),
  };
  writeFileSync(join(OUT, `${cli}-run.json`), JSON.stringify(summary, null, 2) + '\n');
}

async function claude(warrant: Awaited<ReturnType<typeof startWarrant>>): Promise<void> {
  const dir = join(SCRATCH, 'claude');
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  const steps: Step[] = [
    { when: when.userSays('FIXTURE PROMPT'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'toolu_fixture_get' } },
    {
      when: when.resultOf('toolu_fixture_get'),
      reply: {
        tool: 'Agent',
        input: { subagent_type: 'general-purpose', description: 'fixture subagent', prompt: 'FIXTURE SUBTASK: read the session' },
        id: 'toolu_fixture_agent',
      },
    },
    { when: when.userSays('FIXTURE SUBTASK'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'toolu_fixture_sub_get' } },
    { when: when.resultOf('toolu_fixture_sub_get'), reply: { text: 'subagent done' } },
    { when: when.resultOf('toolu_fixture_agent'), reply: { text: 'launched' } },
  ];
  const endpoint = await startModelEndpoint(steps, { defaultText: 'all done' });
  const captureFile = join(dir, 'hooks.jsonl');
  const env = {
    ...setupClaude({
      project,
      endpointUrl: endpoint.url,
      hooks: Object.fromEntries(CLAUDE_EVENTS.map((e) => [e, [capture(e)]])),
      mcpServers: { warrant: { ...warrantMcpCommand(), env: { WARRANT_URL: '${WARRANT_URL}', WARRANT_SESSION_TOKEN: '${WARRANT_SESSION_TOKEN}' } } },
      allow: ['mcp__warrant__*'],
    }),
    CAPTURE_FILE: captureFile,
  };
  const run = await warrant.run('fixture claude', [CLAUDE_BIN, '-p', 'FIXTURE PROMPT'], { cwd: project, env, extraArgs: ['--provider', 'claude-code'] });
  await endpoint.close();
  if (run.code !== 0) throw new Error(`claude run failed: ${run.stderr}`);
  const pending = endpoint.pending();
  if (pending.length > 0) throw new Error(`claude: steps never asked for: ${pending.join(', ')}`);
  const hooks = readCaptured(captureFile);

  // stream-json input: one user line, stdin closed after the reply
  const streamEndpoint = await startModelEndpoint([{ when: when.userSays('STREAM PROMPT'), reply: { text: 'stream reply' } }]);
  const streamFile = join(dir, 'stream-hooks.jsonl');
  const streamEnv = {
    ...setupClaude({ project, endpointUrl: streamEndpoint.url, hooks: { UserPromptSubmit: [capture('UserPromptSubmit')] } }),
    CAPTURE_FILE: streamFile,
  };
  const line = JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'STREAM PROMPT' }] } });
  await warrant.run('fixture claude stream', [CLAUDE_BIN, '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], {
    cwd: project,
    env: streamEnv,
    input: `${line}\n`,
  });
  await streamEndpoint.close();
  const streamHook = readCaptured(streamFile).find((h) => h.label === 'UserPromptSubmit');
  if (!streamHook) throw new Error('claude: UserPromptSubmit did not fire for stream-json input');
  writeFileSync(join(OUT, 'claude-code-UserPromptSubmit-stream-json.json'), JSON.stringify(sanitize(streamHook.payload), null, 2) + '\n');

  save(
    'claude-code',
    hooks,
    {
      'UserPromptSubmit-task-notification': (h) => h.label === 'UserPromptSubmit' && String(h.payload?.prompt).startsWith('<task-notification>'),
      'PreToolUse-subagent': (h) => h.label === 'PreToolUse' && typeof h.payload?.agent_id === 'string',
      'PostToolUse-Agent': (h) => h.label === 'PostToolUse' && h.payload?.tool_name === 'Agent',
    },
    { version: AGENT_CLI_PINS['@anthropic-ai/claude-code'], command: 'warrant run -- claude -p "FIXTURE PROMPT"', stream_json_input_line: JSON.parse(line) },
  );
}

async function codex(warrant: Awaited<ReturnType<typeof startWarrant>>): Promise<void> {
  const dir = join(SCRATCH, 'codex');
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  const steps: Step[] = [
    { when: when.userSays('FIXTURE PROMPT'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'call_fixture_get' } },
    {
      when: when.resultOf('call_fixture_get'),
      reply: { tool: 'multi_agent_v1__spawn_agent', input: { message: 'FIXTURE SUBTASK: read the session' }, id: 'call_fixture_spawn' },
    },
    { when: when.userSays('FIXTURE SUBTASK'), reply: { tool: 'mcp__warrant__get_session', input: {}, id: 'call_fixture_sub_get' } },
    { when: when.resultOf('call_fixture_sub_get'), reply: { text: 'subagent done' } },
    {
      when: when.resultOf('call_fixture_spawn'),
      reply: (r) => ({
        tool: 'multi_agent_v1__wait_agent',
        input: { targets: [JSON.parse(r.toolResults[0]!.text).agent_id], timeout_ms: 30_000 },
        id: 'call_fixture_wait',
      }),
    },
    { when: when.resultOf('call_fixture_wait'), reply: { text: 'all done' } },
  ];
  const endpoint = await startModelEndpoint(steps);
  const captureFile = join(dir, 'hooks.jsonl');
  const env = {
    ...(await setupCodex({
      project,
      endpointUrl: endpoint.url,
      hooks: Object.fromEntries(CODEX_EVENTS.map((e) => [e, [capture(e)]])),
      notify: [process.execPath, CAPTURE_HOOK, 'notify'],
      mcpServers: { warrant: { ...warrantMcpCommand(), envVars: ['WARRANT_URL', 'WARRANT_SESSION_TOKEN'] } },
    })),
    CAPTURE_FILE: captureFile,
  };
  const run = await warrant.run('fixture codex', [process.execPath, CODEX_JS, 'exec', '--skip-git-repo-check', 'FIXTURE PROMPT'], {
    cwd: project,
    env,
    extraArgs: ['--provider', 'codex'],
  });
  await endpoint.close();
  if (run.code !== 0) throw new Error(`codex run failed: ${run.stderr}`);
  const pending = endpoint.pending();
  if (pending.length > 0) throw new Error(`codex: steps never asked for: ${pending.join(', ')}`);
  const hooks = readCaptured(captureFile);
  save(
    'codex',
    hooks,
    {
      'UserPromptSubmit-subagent': (h) => h.label === 'UserPromptSubmit' && typeof h.payload?.agent_id === 'string',
      'PreToolUse-subagent': (h) => h.label === 'PreToolUse' && typeof h.payload?.agent_id === 'string',
      'notify-subagent': (h) => h.label === 'notify' && !('client' in (h.payload ?? {})),
      // the subagent's turn completes first: the plain fixture is the parent's
      notify: (h) => h.label === 'notify' && 'client' in (h.payload ?? {}),
    },
    { version: AGENT_CLI_PINS['@openai/codex'], command: 'warrant run -- codex exec "FIXTURE PROMPT"', notify_payload: 'last argv' },
  );
}

requireAgentClis();
rmSync(SCRATCH, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const warrant = await startWarrant();
try {
  await claude(warrant);
  await codex(warrant);
} finally {
  await warrant.stop();
}
process.stdout.write(`fixtures written to ${OUT}\n`);
