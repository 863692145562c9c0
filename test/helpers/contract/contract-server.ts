import { createTestDatabase, type DialectName, type TestDatabase } from '../databases.js';
import { runCli, startServer, type ServerProcess } from '../server-process.js';

/** The credentials the contract test calls every operation with (`admin` is an admin human). */
export const TOKEN_KINDS = ['fleet', 'session', 'human', 'admin', 'client', 'none'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export interface ContractServer {
  dialect: DialectName;
  url: string;
  /** every kind but `session` (a scene's own session token) and `none` */
  tokens: { fleet: string; human: string; admin: string; client: string };
  call(
    method: string,
    path: string,
    token: string | null,
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<{ status: number; contentType: string | null; text: string; json: any }>;
  stop(): Promise<void>;
}

/** A real `warrant serve` process (multi-user mode) on a fresh database of the dialect, with a roster: ada, and root the admin. */
export async function startContractServer(dialect: DialectName): Promise<ContractServer> {
  const database: TestDatabase = await createTestDatabase(dialect);
  const dbArgs = database.databaseUrl ? ['--database-url', database.databaseUrl] : [];
  let server: ServerProcess | undefined;
  try {
    server = await startServer({ args: ['--port', '0', '--mode', 'multi-user', ...dbArgs] });
    const store = ['--data-dir', server.dataDir, ...dbArgs];
    const cli = async (args: string[]) => {
      const r = await runCli([...args, ...store]);
      if (r.code !== 0) throw new Error(`warrant ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    await cli(['users', 'add', 'ada', '--name', 'Ada Contract']);
    await cli(['users', 'add', 'root', '--name', 'Root Admin', '--admin']);
    const tokenOf = async (args: string[]) => JSON.parse(await cli([...args, '--json'])).token as string;
    const tokens = {
      fleet: server.fleetKey,
      human: await tokenOf(['users', 'tokens', 'issue', 'ada']),
      admin: await tokenOf(['users', 'tokens', 'issue', 'root']),
      client: await tokenOf(['keys', 'issue-client', 'contract-ci']),
    };
    const url = server.url;
    const running = server;
    return {
      dialect,
      url,
      tokens,
      async call(method, path, token, body, extraHeaders = {}) {
        const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...extraHeaders };
        if (token) headers.authorization = `Bearer ${token}`;
        const r = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
        const text = await r.text();
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON: the caller judges the content type
        }
        return { status: r.status, contentType: r.headers.get('content-type'), text, json };
      },
      async stop() {
        await running.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await server?.stop();
    await database.drop();
    throw error;
  }
}

/** Real things for requests to name, so generated requests reach success paths and not only 404s. */
export interface Scene {
  /** the session whose own token is the `session` credential; spawned by `parent` */
  agentToken: string;
  known: Record<string, unknown[]>;
}

/**
 * A fresh scene for one operation: a parent P and its child A (both attached), an uncle U that
 * followed A up (an uncle edge U → A), ada's own session H, one that ended and one no one owns, a message A sent P, a queued and a
 * followed-up item on A, and a conversation A reported. Fresh each time, so an operation that
 * deletes or archives leaves the next one its own targets.
 */
export async function createScene(server: ContractServer, n: number): Promise<Scene> {
  const must = async (method: string, path: string, token: string, body: unknown, status: number) => {
    const r = await server.call(method, path, token, body);
    if (r.status !== status) throw new Error(`scene: ${method} ${path} answered ${r.status} ${r.text}`);
    return r.json;
  };
  const { fleet, human } = server.tokens;
  // ada owns the scene (so her token, as well as the fleet's and the admin's, reaches success paths); `stranger` is no one's
  const create = (token: string, body: Record<string, unknown>) => must('POST', '/api/v1/sessions', token, body, 201);
  const [parent, uncle, own, stranger, ended] = await Promise.all([
    create(fleet, { title: `scene ${n} parent`, attach: true, owner: 'ada' }),
    create(fleet, { title: `scene ${n} uncle`, attach: true, owner: 'ada' }),
    create(human, { title: `scene ${n} ada's` }),
    create(fleet, { title: `scene ${n} no one's` }),
    create(fleet, { title: `scene ${n} ended`, attach: true, owner: 'ada' }),
  ]);
  const agent = await create(parent.session_token, { title: `scene ${n} agent`, attach: true, provider: 'claude-code' });
  const a = agent.session;
  const [queued, followUp, message] = await Promise.all([
    must('POST', `/api/v1/sessions/${a.id}/enqueued_messages`, fleet, { content: 'queued for the contract' }, 201),
    must('POST', `/api/v1/sessions/${a.id}/follow_up`, uncle.session_token, { content: 'from the uncle' }, 201),
    must('POST', '/api/v1/messages', agent.session_token, { to: parent.session.id, payload: 'to my parent' }, 201),
    must('POST', `/api/v1/sessions/${a.id}/conversation`, agent.session_token, { provider: 'claude-code', conversation_id: `conversation-${n}` }, 200),
    must('POST', `/api/v1/sessions/${ended.session.id}/runtime`, ended.session_token, { state: 'exited', code: 0 }, 200),
  ]);
  // the agent is the usual target (its items, its uncle edge); the others once each
  const agentRefs = [a.id, String(a.id), `#${a.id}`, a.uid, `uid:${a.uid.slice(0, 12)}`];
  const others = [parent.session, uncle.session, own.session, ended.session, stranger.session].map((s) => s.id);
  // numbers for bodies, their text for paths and queries (a known value is used only where its schema accepts it)
  const refs = [...agentRefs, ...agentRefs, ...others, ...others.map(String), String(own.session.id), String(ended.session.id)];
  const items = [queued.inbox_item.id, queued.inbox_item.id, queued.inbox_item.id, followUp.inbox_item.id];
  return {
    agentToken: agent.session_token,
    known: {
      ref: refs,
      junior: refs,
      uncle: [uncle.session.id, String(uncle.session.id), uncle.session.uid],
      parent: refs,
      to: refs,
      session_id: refs,
      acting_session_id: refs,
      parent_session_id: refs,
      parentSessionId: refs,
      mid: [...items, ...items.map(String)],
      item_id: [...items, ...items.map(String)],
      'ids[]': items,
      id: [message.message.id],
      reply_to: [message.message.id],
      owner: ['ada', 'root'],
      provider: ['claude-code'],
      conversation_id: [`conversation-${n}`],
      offset: [0],
      actor: ['fleet', 'ada', `session:${a.id}`, 'client:contract-ci'],
      // audit proofs: entries the scene's own writes put in the log
      seq: ['1', '2', '3'],
      tree_size: ['3', '4'],
      from: ['1', '2'],
    },
  };
}
