import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createTestDatabase, type DialectName } from '../../helpers/databases.js';
import { startServer } from '../../helpers/server-process.js';
import { mixedLoad, until, type Ack } from './load.js';
import { expectAcknowledgedWritesKept, expectAuditVerifies } from './verify.js';

export interface CrashFigures {
  kills: number;
  acknowledged: number;
  /** requests the kills cut before they were answered */
  cut: number;
}

/**
 * Crash safety (docs/operations.md, "Reliability"): kill -9 the node under mixed write load,
 * restart it on the same store, and check every write acknowledged so far — over all the
 * kills — is there with its event, events and changes agree, and `warrant audit verify`
 * passes. Then the next kill.
 */
export async function killUnderLoad(dialect: DialectName, options: { kills: number; acksPerRound: number; workers: number }): Promise<CrashFigures> {
  const db = await createTestDatabase(dialect);
  const cwd = mkdtempSync(join(tmpdir(), 'warrant-kill9-'));
  const dataDir = join(cwd, '.warrant');
  const args = ['--port', '0', ...(db.databaseUrl ? ['--database-url', db.databaseUrl] : [])];
  const where = { databaseUrl: db.databaseUrl, sqliteFile: join(dataDir, 'warrant.db'), dataDir };
  const acks: Ack[] = [];
  let cut = 0;
  let server = await startServer({ args, cwd, dataDir });
  try {
    for (let kill = 1; kill <= options.kills; kill++) {
      const load = mixedLoad(server.url, server.fleetKey, { workers: options.workers, archive: true });
      // killed while every worker has a request in flight
      await until(() => load.acks.length >= options.acksPerRound);
      await server.stop('SIGKILL');
      await load.stop();
      expect(load.unexpected, 'answers outside the documented statuses').toEqual([]);
      expect(load.transportErrors, 'requests cut by the kill').toBeGreaterThan(0);
      cut += load.transportErrors;
      acks.push(...load.acks);
      server = await startServer({ args, cwd, dataDir });
      await expectAcknowledgedWritesKept(where, acks);
      await expectAuditVerifies(where);
    }
    return { kills: options.kills, acknowledged: acks.length, cut };
  } finally {
    await server.stop('SIGTERM');
    await db.drop();
    rmSync(cwd, { recursive: true, force: true });
  }
}
