import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe } from 'vitest';
import { openStore } from '../../src/store/connect.js';
import type { StoreDialect } from '../../src/store/dialect/dialect.js';
import { createAppContext, type ContextOptions } from '../../src/app/bootstrap.js';
import type { AppContext, Clock } from '../../src/app/context.js';
import { systemCaller } from '../../src/app/caller.js';
import { addUser, issueClientKey, issueFleetKey, issueHumanToken } from '../../src/app/roster.js';
import { assembleService, type Service } from '../../src/composition.js';
import type { UserRecord } from '../../src/store/users-repo.js';
import { createTestDatabase, pgAvailable, type DialectName, type TestDatabase } from './databases.js';

export type { DialectName };

export interface TestResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** a raw body string (malformed JSON tests) */
  raw?: string;
  headers?: Record<string, string>;
}

export class ManualClock implements Clock {
  constructor(private t = Date.parse('2026-11-29T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
}

export interface Harness {
  dialect: DialectName;
  database: TestDatabase;
  store: StoreDialect;
  ctx: AppContext;
  service: Service;
  fleetKey: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** a roster user and a human token for them */
  human(key: string, options?: { admin?: boolean; displayName?: string; slack?: string[]; notes?: string }): Promise<{ user: UserRecord; token: string }>;
  clientKey(name: string): Promise<string>;
  /** POST /api/v1/sessions, expecting 201; returns the response body */
  create(token: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<any>;
  close(): Promise<void>;
}

export interface HarnessOptions extends Pick<ContextOptions, 'mode' | 'leaseMs' | 'ids'> {
  clock?: Clock;
}

let userCounter = 0;

export async function openHarness(dialect: DialectName, options: HarnessOptions = {}): Promise<Harness> {
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, sqliteFile: database.sqliteFile });
  const ctx = await createAppContext(store, {
    logger: pino({ level: process.env.WARRANT_TEST_LOG ?? 'silent' }),
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
  });
  // The process's secret (other contexts this test opens on the store share it) goes to the
  // data dir, where the CLI binary run against this store finds it.
  writeFileSync(join(dirname(database.sqliteFile), 'server-secret'), ctx.serverSecret.toString('hex') + '\n', { mode: 0o600 });
  const service = await assembleService(store, ctx, { housekeeping: false });
  const admin = systemCaller('cli');
  const fleetKey = (await issueFleetKey(ctx, admin, 'tests')).token;

  const request = async <T>(method: string, path: string, o: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { host: 'localhost', ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.raw !== undefined) {
      body = o.raw;
      headers['content-type'] ??= 'application/json';
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await service.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  };

  return {
    dialect,
    database,
    store,
    ctx,
    service,
    fleetKey,
    request,
    async human(key, o = {}) {
      const user = await addUser(ctx, admin, {
        key,
        ...(o.displayName ? { displayName: o.displayName } : {}),
        isAdmin: o.admin ?? false,
        slackUserIds: o.slack ?? [],
        notes: o.notes ?? null,
      });
      const { token } = await issueHumanToken(ctx, admin, key);
      return { user, token };
    },
    async clientKey(name) {
      return (await issueClientKey(ctx, admin, name)).token;
    },
    async create(token, body = {}, headers = {}) {
      const res = await request('POST', '/api/v1/sessions', { token, body, headers });
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
      return res.body;
    },
    async close() {
      await service.stop();
      await store.destroy();
      await database.drop();
    },
  };
}

/** A unique roster key per call, so tests sharing a database never collide. */
export function uniqueKey(prefix = 'user'): string {
  userCounter++;
  return `${prefix}-${process.pid}-${userCounter}`;
}

/**
 * Runs one suite against every dialect (docs/design/quality.md: every store test runs on both). The
 * PostgreSQL copy is skipped — reported as skipped, never passed — only when no server
 * answers outside CI; in CI the global setup fails the run instead.
 */
export function describeEachDialect(name: string, body: (harness: () => Harness, dialect: DialectName) => void, options: HarnessOptions = {}): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const skip = dialect === 'postgres' && !pgAvailable();
    describe.skipIf(skip)(`${name} [${dialect}]`, () => {
      let harness: Harness | undefined;
      beforeAll(async () => {
        harness = await openHarness(dialect, options);
      });
      afterAll(async () => {
        await harness?.close();
      });
      body(() => {
        if (!harness) throw new Error('harness not open');
        return harness;
      }, dialect);
    });
  }
}
