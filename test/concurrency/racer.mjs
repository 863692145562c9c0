// A racer process for the SQLite concurrency tests (docs/design/quality.md): they use two
// processes because Kysely's SQLite driver serializes one connection in-process, so an
// in-process barrier would deadlock rather than race. It opens the same SQLite file as the test through
// the built app (`npm run build` first), and takes orders on stdin, one JSON line each:
//   {"cmd":"read","path":…,"token":…}   read the session, then answer {"event":"ready"}
//   {"cmd":"go","request":{…},"token":…} make the change, answer {"event":"done",status,body}
//   {"cmd":"exit"}
// The test sends "go" to every racer only after all have answered "ready": the barrier.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import pino from 'pino';

const dist = new URL('../../dist/', import.meta.url);
const { openStore } = await import(new URL('store/connect.js', dist).href);
const { createAppContext } = await import(new URL('app/bootstrap.js', dist).href);
const { assembleService } = await import(new URL('composition.js', dist).href);

const store = await openStore({ sqliteFile: process.argv[2] }, { migrate: false });
// the harness's server secret, from the data dir beside the database
const serverSecret = Buffer.from(readFileSync(join(dirname(process.argv[2]), 'server-secret'), 'utf8').trim(), 'hex');
const ctx = await createAppContext(store, { logger: pino({ level: 'silent' }), serverSecret });
const service = await assembleService(store, ctx, { housekeeping: false });

const say = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');

async function send(token, method, path, body, headers = {}) {
  const res = await service.app.request(path, {
    method,
    headers: { host: 'localhost', authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

say({ event: 'started', pid: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.cmd === 'exit') break;
  try {
    if (msg.cmd === 'read') {
      const r = await send(msg.token, 'GET', msg.path);
      say({ event: 'ready', status: r.status });
    } else if (msg.cmd === 'go') {
      const q = msg.request;
      say({ event: 'done', ...(await send(msg.token, q.method, q.path, q.body, q.headers)) });
    }
  } catch (error) {
    say({ event: 'failed', message: String(error?.stack ?? error) });
  }
}
await service.stop();
await store.destroy();
process.exit(0);
