/**
 * Agent runs wired the way a user wires them: the project (or CODEX_HOME) configured only by
 * `warrant integrate … --write`, plus the hermetic harness env (agent-clis.ts). And the ledger
 * reads the acceptance tests assert on, all through the REST API.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { expect } from 'vitest';
import { runCli } from '../helpers/server-process.js';
import { CODEX_JS, setupClaude, setupCodex, WARRANT_CLI, type Run } from './agent-clis.js';
import type { WarrantFixture } from './warrant-run.js';

/** The hermetic Claude env (config dir, onboarding, trust, endpoint) and `warrant integrate claude-code --write`; nothing else. */
export async function integratedClaude(project: string, endpointUrl: string): Promise<Record<string, string>> {
  mkdirSync(project, { recursive: true });
  const env = setupClaude({ project, endpointUrl });
  const r = await runCli(['integrate', 'claude-code', '--write', '--dir', project], { env, cwd: project });
  if (r.code !== 0) throw new Error(`integrate claude-code: ${r.stderr}`);
  return env;
}

/** The hermetic Codex env (CODEX_HOME with the endpoint and project trust) and `warrant integrate codex --write --trust-hooks`. */
export async function integratedCodex(project: string, endpointUrl: string): Promise<Record<string, string>> {
  mkdirSync(project, { recursive: true });
  const env = await setupCodex({ project, endpointUrl });
  const r = await runCli(['integrate', 'codex', '--write', '--trust-hooks', '--codex', CODEX_JS, '--dir', project], { env, cwd: project });
  if (r.code !== 0) throw new Error(`integrate codex: ${r.stderr}\n${r.stdout}`);
  expect(r.stdout).toMatch(/Warrant hooks recorded as trusted/);
  return env;
}

export interface Background {
  /** resolves when `warrant run` exits */
  done: Promise<Run>;
  kill(): void;
}

/** `warrant run <args> -- <command>` with the human token, not awaited (its agent keeps reading its input). */
export function runInBackground(warrant: WarrantFixture, args: string[], command: string[], o: { cwd: string; env: Record<string, string> }): Background {
  const child = spawn(process.execPath, [WARRANT_CLI, 'run', ...args, '--', ...command], {
    cwd: o.cwd,
    env: { ...o.env, WARRANT_URL: warrant.server.url, WARRANT_TOKEN: warrant.humanToken },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { done, kill: () => child.kill('SIGKILL') };
}

/** Polls `probe` until it returns a value other than undefined (every 200 ms, up to `timeoutMs`). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The ledger reads, with the fleet key. */
export function ledger(warrant: WarrantFixture) {
  return {
    session: async (id: number) => (await warrant.get(`/api/v1/sessions/${id}`)).session,
    events: async (id: number) => (await warrant.get(`/api/v1/sessions/${id}/events?limit=200`)).events as any[],
    children: async (id: number) => (await warrant.get(`/api/v1/sessions?parent=${id}`)).sessions as any[],
    conversations: async (id: number) => (await warrant.get(`/api/v1/sessions/${id}/conversations`)).conversations as any[],
    transcript: async (id: number) => (await warrant.get(`/api/v1/sessions/${id}/transcript?limit=200`)).records as any[],
    inbox: async (id: number) => (await warrant.get(`/api/v1/sessions/${id}/inbox?state=all`)).items as any[],
  };
}

/** The runtime states a session's events record, in order (`started`, `idle`, `exited`, …). */
export function runtimeStates(events: any[]): string[] {
  return events.filter((e) => e.type.startsWith('runtime_')).map((e) => String(e.type).slice('runtime_'.length));
}
