import { describe, it } from 'vitest';
import { pgAvailable, type DialectName } from '../../helpers/databases.js';
import { killUnderLoad } from '../support/crash.js';
import { figure, report, scaled } from '../support/load.js';

/** kill -9 again and again on one store (the one-kill version runs in the main suite: ../crash.test.ts). */
const KILLS = scaled(2, 12);

describe.each<DialectName>(['sqlite', 'postgres'])('kill -9 under mixed write load, repeated [%s]', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgAvailable())(`${KILLS} kills: no acknowledged write lost, the audit chain verifies after each restart`, async () => {
    const f = await killUnderLoad(dialect, { kills: KILLS, acksPerRound: scaled(150, 400), workers: 12 });
    report(
      `kill-9 ${dialect}: ${f.kills} kills, ${figure(f.acknowledged)} acknowledged writes, 0 lost, ${figure(f.cut)} requests cut unanswered, audit verify OK after each`,
    );
  });
});
