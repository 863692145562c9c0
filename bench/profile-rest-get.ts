/**
 * A CPU profile of the built server answering REST `GET /sessions/:ref` (the 20-node hierarchy
 * of the REST rows) and nothing else, summarised by where the time went: by package and by
 * function (self time). Used for bench/README.md's before/after profiles.
 *
 *   npx tsx bench/profile-rest-get.ts [--dialect sqlite|postgres] [--duration 10] [--cli path/to/dist/cli/main.js] [--out DIR]
 *     [--workload get|list|create|mcp-list|mcp-get]
 *
 * `--cli` profiles another build (a checkout of an earlier commit, built) against the same load.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BENCH_SERVER_SECRET, freshStore } from './bench-database.js';
import { autocannon, MCP_VERSION, seedRestFleet, serverEnvFor, startServer } from './rest-bench.js';
import { dialectsFromArgs, flag, runIfEntryPoint } from './standalone.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function option(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** Where a frame's code lives: a package, a layer of the built server, node itself, or the engine. */
function placeOf(url: string): string {
  if (url === '') return '(native code, GC)';
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/([^/]+)\//.exec(url);
  if (own) return `warrant ${own[1]}`;
  return url.startsWith('node:') ? 'node' : url;
}

/** The profile as two top-N tables of self time: by place and by function. */
function summariseProfile(profile: CpuProfile, top = 15): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    total += us;
    const place = placeOf(frame.url);
    places.set(place, (places.get(place) ?? 0) + us);
    const fn = `${frame.functionName || '(anonymous)'} (${place}${frame.url.includes('/dist/') ? ' ' + frame.url.replace(/.*\/dist\//, '') + ':' + (frame.lineNumber + 1) : ''})`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const table = (title: string, m: Map<string, number>) =>
    [
      `| ${title} | share of busy CPU |`,
      '| --- | --- |',
      ...[...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, us]) => `| ${k} | ${((100 * us) / total).toFixed(1)}% |`),
    ].join('\n');
  return `busy CPU ${(total / 1e6).toFixed(1)} s (idle excluded)\n\n${table('where', places)}\n\n${table('function (self time)', functions)}`;
}

/** The request each workload sends (the same ones the REST module of the bench times). */
function workloadRequest(
  workload: string,
  url: string,
  target: number,
): { url: string; method?: string; body?: string; headers?: Record<string, string>; label: string } {
  const mcp = (body: unknown, label: string) => ({
    url: `${url}/mcp`,
    method: 'POST',
    body: JSON.stringify(body),
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_VERSION },
    label,
  });
  switch (workload) {
    case 'get':
      return { url: `${url}/api/v1/sessions/${target}`, label: 'REST GET /sessions/:ref' };
    case 'list':
      return { url: `${url}/api/v1/sessions?limit=50`, label: 'REST session list page (50)' };
    case 'create':
      return { url: `${url}/api/v1/sessions`, method: 'POST', body: JSON.stringify({ title: 'bench create' }), label: 'REST create session (durable)' };
    case 'mcp-list':
      return mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'MCP tools/list');
    case 'mcp-get':
      return mcp(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_session', arguments: { session: target } } },
        'MCP tools/call get_session',
      );
    default:
      throw new Error(`--workload: ${JSON.stringify(workload)} is not get, list, create, mcp-list or mcp-get`);
  }
}

runIfEntryPoint(import.meta.url, 'profile-rest-get', async () => {
  const duration = flag('--duration', 10);
  const workload = option('--workload') ?? 'get';
  const cli = option('--cli') ? resolve(option('--cli')!) : undefined;
  for (const dialect of dialectsFromArgs()) {
    const out = option('--out') ? resolve(option('--out')!, dialect) : mkdtempSync(join(tmpdir(), 'warrant-profile-'));
    // another build migrates its own store: it starts on an empty data dir (SQLite only)
    if (cli && dialect !== 'sqlite') throw new Error('--cli profiles another build on SQLite only: its own migrations make its store');
    const fresh = cli ? null : await freshStore(dialect);
    const dataDir = mkdtempSync(join(tmpdir(), 'warrant-profile-data-'));
    try {
      const env = fresh ? serverEnvFor(dataDir, fresh.location) : { WARRANT_DATA_DIR: dataDir, WARRANT_SERVER_SECRET: BENCH_SERVER_SECRET.toString('hex') };
      const server = await startServer(env, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${out}`], ...(cli ? { cli } : {}) });
      let load;
      let request: ReturnType<typeof workloadRequest> | undefined;
      try {
        const target = await seedRestFleet(server.url, server.fleetKey, env, cli);
        request = workloadRequest(workload, server.url, target);
        const { url, label: _label, ...options } = request;
        // warm up, then the profiled load
        await autocannon(url, { token: server.fleetKey, duration: 2, ...options });
        load = await autocannon(url, { token: server.fleetKey, duration, ...options });
      } finally {
        server.child.kill('SIGTERM');
        await new Promise((r) => server.child.once('exit', r));
      }
      const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`the server wrote no profile into ${out}`);
      const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as CpuProfile;
      process.stdout.write(
        `## ${dialect}: ${request.label}, ${duration} s, ${Math.round(load.rps)} req/s, p99 ${load.p99} ms (profile ${join(out, file)}; includes seeding)\n\n${summariseProfile(profile)}\n\n`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await fresh?.drop();
    }
  }
});
