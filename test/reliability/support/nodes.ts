import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type DialectName, type TestDatabase } from '../../helpers/databases.js';
import { startServer, type ServerProcess } from '../../helpers/server-process.js';

/**
 * One or two `warrant serve` processes on one store: on PostgreSQL two nodes sharing the
 * server secret (each with its data dir), on SQLite one node (the embedded store has one).
 */
export async function startNodes(dialect: DialectName): Promise<{ db: TestDatabase; nodes: ServerProcess[]; stop(): Promise<(number | null)[]> }> {
  const db = await createTestDatabase(dialect);
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-nodes-'));
  const env = { WARRANT_SERVER_SECRET: randomBytes(32).toString('hex') };
  const args = ['--port', '0', ...(db.databaseUrl ? ['--database-url', db.databaseUrl] : [])];
  const nodes: ServerProcess[] = [];
  let stopped: Promise<(number | null)[]> | undefined;
  const count = dialect === 'postgres' ? 2 : 1;
  for (let i = 0; i < count; i++) nodes.push(await startServer({ args, env, cwd, dataDir: join(cwd, `node-${i}`) }));
  return {
    db,
    nodes,
    /** SIGTERM to every node (once; later calls only repeat the exit codes) */
    async stop() {
      stopped ??= (async () => {
        const codes = await Promise.all(nodes.map((node) => node.stop('SIGTERM')));
        await db.drop();
        rmSync(cwd, { recursive: true, force: true });
        return codes;
      })();
      return stopped;
    },
  };
}

/** A live-event subscriber on its own connection that counts the sessions it saw created. */
export class CountingSubscriber {
  readonly created = new Set<number>();
  events = 0;
  bytes = 0;
  failure: string | null = null;
  private buffer = '';
  private ready!: () => void;
  readonly isReady = new Promise<void>((resolve) => (this.ready = resolve));
  private readonly req;

  constructor(url: string, token: string) {
    this.req = request(`${url}/api/v1/events/stream`, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) this.fail(`status ${res.statusCode}`);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => this.take(chunk));
      res.on('end', () => this.fail('the stream ended'));
      res.on('error', (error) => this.fail(error.message));
    });
    this.req.on('error', (error) => this.fail(error.message));
    this.req.end();
  }

  private take(chunk: string): void {
    this.bytes += Buffer.byteLength(chunk);
    this.buffer += chunk;
    let sep: number;
    while ((sep = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, sep);
      this.buffer = this.buffer.slice(sep + 2);
      const event = /^event: ?(.*)$/m.exec(block)?.[1];
      if (!event) continue;
      this.events++;
      if (event === 'ready') this.ready();
      if (event === 'session_created') {
        const data = block
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        this.created.add(Number(JSON.parse(data).session.id));
      }
    }
  }

  private fail(reason: string): void {
    if (!this.closing) this.failure ??= reason;
    this.ready();
  }

  private closing = false;
  close(): void {
    this.closing = true;
    this.req.destroy();
  }
}

/** A subscriber that sends its request and never reads a byte of the answer. */
export function stalledSubscriber(url: string, token: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname, () => {
    socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    socket.pause();
  });
  socket.on('error', () => {});
  return socket;
}

/** The resident set size of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Creates sessions one after another until `keepGoing` says stop; returns the acknowledged ids. */
export async function serialWriter(
  url: string,
  token: string,
  keepGoing: (written: number) => boolean,
  title: (n: number) => string = (n) => `writer ${n}`,
): Promise<number[]> {
  const ids: number[] = [];
  for (let n = 0; keepGoing(n); n++) {
    const res = await fetch(`${url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: title(n) }),
    });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`writer: ${res.status} ${JSON.stringify(body)}`);
    ids.push(Number(body.session.id));
  }
  return ids;
}
