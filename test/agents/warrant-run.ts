/**
 * A real Warrant server (SQLite, its fleet key) and `warrant run -- <agent>` against it, with
 * the REST reads the agent tests assert on.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { runCli, startServer, type ServerProcess } from '../helpers/server-process.js';
import { afterAll, beforeAll } from 'vitest';
import { requireAgentClis, runToEnd, WARRANT_CLI, type Run } from './agent-clis.js';

export interface WarrantFixture {
  server: ServerProcess;
  /** a human token (user `ada`): `warrant run` acts as a person would */
  humanToken: string;
  get<T = any>(path: string): Promise<T>;
  /** POST with the human token */
  post<T = any>(path: string, body: unknown): Promise<T>;
  /** `warrant run --title <title> -- <command…>` with the human token; cwd = the agent's project */
  run(
    title: string,
    command: string[],
    options: { cwd: string; env: Record<string, string>; extraArgs?: string[]; input?: string; timeoutMs?: number },
  ): Promise<Run>;
  /** the session `warrant run` created under `title` */
  sessionTitled(title: string): Promise<any>;
  stop(): Promise<void>;
}

export async function startWarrant(): Promise<WarrantFixture> {
  const server = await startServer();
  const storeEnv = { WARRANT_DATA_DIR: server.dataDir };
  const added = await runCli(['users', 'add', 'ada', '--name', 'Ada Agent-Runner'], { env: storeEnv });
  if (added.code !== 0) throw new Error(`users add: ${added.stderr}`);
  const issued = await runCli(['users', 'tokens', 'issue', 'ada', '--json'], { env: storeEnv });
  const humanToken = JSON.parse(issued.stdout).token as string;
  const get = async (path: string) => {
    const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.fleetKey}` } });
    if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${humanToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  return {
    server,
    humanToken,
    get,
    post,
    run: (title, command, o) => {
      mkdirSync(o.cwd, { recursive: true });
      return runToEnd(process.execPath, [WARRANT_CLI, 'run', '--title', title, ...(o.extraArgs ?? []), '--', ...command], {
        cwd: o.cwd,
        env: { ...o.env, WARRANT_URL: server.url, WARRANT_TOKEN: humanToken },
        input: o.input,
        timeoutMs: o.timeoutMs,
      });
    },
    async sessionTitled(title) {
      const list = await get(`/api/v1/sessions?q=${encodeURIComponent(title)}`);
      const found = (list.sessions as any[]).filter((s) => s.title === title);
      if (found.length !== 1) throw new Error(`expected one session titled ${title}, found ${found.length}`);
      return (await get(`/api/v1/sessions/${found[0].id}`)).session;
    },
    stop: async () => {
      await server.stop();
    },
  };
}

export const projectIn = (dir: string) => join(dir, 'project');

/**
 * One Warrant server for a describe block: started before its tests (once the pinned CLIs are
 * known to be there) and stopped after them. The returned object is filled in by beforeAll.
 */
export function warrantForSuite(): WarrantFixture {
  const fixture = {} as WarrantFixture;
  beforeAll(async () => {
    requireAgentClis();
    Object.assign(fixture, await startWarrant());
  });
  afterAll(async () => {
    await fixture.stop?.();
  });
  return fixture;
}
