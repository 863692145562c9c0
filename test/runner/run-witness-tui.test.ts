import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, startServer, type ServerProcess } from '../helpers/server-process.js';
import { HOOK, openTerminal, WITNESS_TUI, type Terminal } from './witness-pty.js';

/** The TUI under the witness behaves exactly as without Warrant, and the runner holds no credential in its environment block. */
describe('warrant run with a human token on a terminal: the agent TUI is unchanged', () => {
  let server: ServerProcess;
  let humanToken: string;
  beforeAll(async () => {
    server = await startServer();
    const env = { WARRANT_DATA_DIR: server.dataDir };
    await runCli(['users', 'add', 'tess', '--name', 'Tess Typist'], { env });
    humanToken = JSON.parse((await runCli(['users', 'tokens', 'issue', 'tess', '--json'], { env })).stdout).token;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const baseEnv = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8', TERM: 'xterm-256color' });

  /** The same session with the agent run directly in a PTY (the baseline) and under `warrant run`. */
  async function session(t: Terminal): Promise<{ between: Buffer; keys: string[]; resized: boolean; header: string }> {
    await t.until('ready');
    const header = /size \S+ term \S+ tty \S+ raw \S+/.exec(t.text())![0];
    t.term.resize(120, 40);
    await t.until('resized 120x40');
    // raw mode passes through: Ctrl-C is a byte, not a signal; bracketed paste and UTF-8 arrive as sent
    const keys: string[] = [];
    for (const k of ['\x03', '\x1b[200~pasted\x1b[201~', 'é', '\x1b[A']) {
      const from = t.text().length;
      t.type(k);
      await t.until(`keys ${Buffer.from(k, 'utf8').toString('hex')}`, { from });
      keys.push(Buffer.from(k, 'utf8').toString('hex'));
    }
    const from = t.bytes().length;
    t.type('\x7f'.repeat(12) + 'emit\r');
    await t.until('<END', { from });
    const out = t.bytes().subarray(from);
    const between = out.subarray(out.indexOf('BEGIN>') + 6, out.indexOf('<END'));
    t.type('exit\r');
    expect(await t.exited).toBe(7);
    return { between, keys, resized: true, header };
  }

  it('same size, TERM, raw mode, keys, resize and exit status; output bytes identical but for ENQ and OSC 52; no credential in the runner environment block', async () => {
    const direct = openTerminal(process.execPath, [WITNESS_TUI], baseEnv());
    const plain = await session(direct);
    const env = { ...baseEnv(), WARRANT_URL: server.url, WARRANT_TOKEN: humanToken, WITNESS_TUI_HOOK: HOOK };
    const witnessed = openTerminal(process.execPath, [CLI, 'run', '--title', 'tui unchanged', '--', process.execPath, WITNESS_TUI], env);
    await witnessed.until('ready');
    // the runner re-executed itself (same pid): its environment block holds neither token
    const environ = readFileSync(`/proc/${witnessed.term.pid}/environ`, 'latin1');
    expect(environ).toContain('WARRANT_URL=');
    expect(environ).not.toContain(humanToken);
    expect(environ).not.toMatch(/wrt_[a-z]_/);
    expect(readFileSync(`/proc/${witnessed.term.pid}/cmdline`, 'latin1')).toContain('tui unchanged');
    const under = await session(witnessed);

    expect(under.header).toBe(plain.header);
    expect(plain.header).toBe('size 100x30 term xterm-256color tty true raw true');
    expect(under.keys).toEqual(plain.keys);
    const expected = Buffer.from(plain.between.toString('latin1').replace('\x1b]52;c;ZWNobyBwd25lZA==\x07', '').replaceAll('\x05', ''), 'latin1');
    expect(plain.between.equals(payloadBytes())).toBe(true);
    expect(under.between.toString('hex')).toBe(expected.toString('hex'));
    // the control: the payload did hold two ENQs and an OSC 52
    expect(expected.length).toBe(plain.between.length - 2 - '\x1b]52;c;ZWNobyBwd25lZA==\x07'.length);
  });
});

function payloadBytes(): Buffer {
  // the payload as the stand-in writes it, straight from the module
  const all = Array.from({ length: 256 }, (_, i) => i).filter((i) => i !== 0x0a);
  return Buffer.concat([Buffer.from(all), Buffer.from('\x1b]52;c;ZWNobyBwd25lZA==\x07after-osc\x05after-enq\xc3(', 'latin1')]);
}
