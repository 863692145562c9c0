import { describe, expect, it } from 'vitest';
import { childEnvironment } from '../../src/runner/child-env.js';
import { CREDENTIAL_FD_VARIABLE, splitEnvironment } from '../../src/runner/credential-reexec.js';
import { loadWitnessNative, typingHidden, witnessIsolation } from '../../src/runner/native-witness.js';
import { substitutePrompt } from '../../src/runner/run.js';

const HUMAN = 'wrt_h_' + 'h'.repeat(32);
const WITNESS = 'wrt_t_' + 't'.repeat(32);

describe('the re-executed runner environment block', () => {
  it('moves every credential, store URL and token-shaped value into the pipe; keeps WARRANT_URL, WARRANT_DATA_DIR and ordinary variables', () => {
    const { kept, moved } = splitEnvironment({
      PATH: '/bin',
      WARRANT_URL: 'http://127.0.0.1:1',
      WARRANT_DATA_DIR: '/srv/warrant',
      WARRANT_TOKEN: HUMAN,
      WARRANT_FLEET_KEY: 'wrt_f_' + 'f'.repeat(32),
      WARRANT_SERVER_SECRET: 'not-token-shaped-but-secret',
      DATABASE_URL: 'postgres://u:p@h/db',
      PGPASSWORD: 'pw',
      SMUGGLED: WITNESS,
      [CREDENTIAL_FD_VARIABLE]: '9',
    });
    expect(kept).toEqual({ PATH: '/bin', WARRANT_URL: 'http://127.0.0.1:1', WARRANT_DATA_DIR: '/srv/warrant' });
    expect(Object.keys(moved).sort()).toEqual(['DATABASE_URL', 'PGPASSWORD', 'SMUGGLED', 'WARRANT_FLEET_KEY', 'WARRANT_SERVER_SECRET', 'WARRANT_TOKEN']);
  });

  it('the agent never gets a witness token, under any name', () => {
    const env = childEnvironment(
      { PATH: '/bin', ANY_NAME: WITNESS, WARRANT_WITNESS: WITNESS },
      { url: 'u', sessionId: 1, sessionUid: 'x', sessionToken: 'wrt_s_' + 's'.repeat(32) },
    );
    expect(JSON.stringify(env)).not.toContain(WITNESS);
    expect(env.PATH).toBe('/bin');
  });
});

describe('--prompt substitution', () => {
  it('replaces every {prompt}, inside arguments too; null when the command has none', () => {
    expect(substitutePrompt(['claude', '-p', '{prompt}'], 'check it')).toEqual(['claude', '-p', 'check it']);
    expect(substitutePrompt(['tool', '--msg={prompt}', '{prompt}'], 'a b')).toEqual(['tool', '--msg=a b', 'a b']);
    // the text itself is never re-substituted
    expect(substitutePrompt(['x', '{prompt}'], '{prompt}')).toEqual(['x', '{prompt}']);
    expect(substitutePrompt(['claude', '-p', 'words'], 'check it')).toBeNull();
  });
});

describe('the native helper (built by npm run build)', () => {
  it('loads, and reports dumpable until asked otherwise in this process', () => {
    const loaded = loadWitnessNative();
    if ('error' in loaded) throw new Error(loaded.error);
    expect(loaded.native.isDumpable()).toBe(true);
    // not a terminal: the termios read throws, and unknown counts as hidden
    expect(() => loaded.native.lineModes(-1)).toThrow();
    expect(typingHidden(loaded.native, -1)).toBe(true);
    expect(() => loaded.native.setExclusive(-1, true)).toThrow(/TIOCEXCL/);
  });

  it('witness_isolation: same-uid for a process of this user (this one), other-uid only when no uid of the agent is the runner', () => {
    expect(witnessIsolation(process.pid)).toBe('same-uid');
    // pid 1 runs as root: other-uid from the point of view of a runner uid that is not root's
    expect(witnessIsolation(1, 12345)).toBe('other-uid');
    // an unreadable process is same-uid (never claim isolation that was not seen)
    expect(witnessIsolation(2 ** 22 + 7)).toBe('same-uid');
  });
});
