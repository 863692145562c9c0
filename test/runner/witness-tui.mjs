// A deterministic stand-in for an agent TUI, for the terminal witness tests. It reports what it
// sees (size, TERM, raw mode, its pid), echoes every chunk it receives as hex, enables bracketed
// paste, keeps a one-line editor (Backspace, pastes) whose Enter fires the prompt hook through
// the runner socket, and obeys a few commands typed as lines:
//   emit      writes PAYLOAD (every byte value but LF, invalid UTF-8, ENQ, OSC 52) between markers
//   noecho    a password prompt: the next line is read canonically with echo off, then reported as a prompt
//   forge:X   reports prompt X through the hook although nobody typed it
//   ask       a dialog of the agent's own: the next line is its answer (no prompt hook); the agent
//             then fires Stop and reports the answer as a prompt (a forged report of a dialog answer)
//   exit      exits with status 7 (so does Ctrl-D on an empty line, which fires no hook)
// With `--argprompt X` it is headless instead: reports X as its prompt and exits 0.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';

const HOOK = process.env.WITNESS_TUI_HOOK;
const report = (payload) => {
  if (!HOOK) return;
  execFileSync(process.execPath, [HOOK, 'claude-code'], { input: JSON.stringify({ session_id: 'witness-tui', cwd: process.cwd(), ...payload }) });
};
export const PAYLOAD = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i).filter((i) => i !== 0x0a)),
  Buffer.from('\x1b]52;c;ZWNobyBwd25lZA==\x07after-osc\x05after-enq\xc3(', 'binary'),
]);

if (process.argv[2] === 'payload') {
  process.stdout.write(PAYLOAD.toString('hex'));
  process.exit(0);
}
if (process.env.WITNESS_TUI_PROBE) {
  // the agent tries to read its runner's environment block and memory (and, as the control, its own)
  const ppid = process.ppid;
  const attempt = (path) => {
    try {
      const fd = openSync(path, 'r');
      const buffer = Buffer.alloc(65536);
      let text = '';
      try {
        text = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, null)).toString('latin1');
      } catch (error) {
        text = `read failed: ${error.code}`;
      }
      closeSync(fd);
      return { opened: true, text };
    } catch (error) {
      return { opened: false, code: error.code };
    }
  };
  writeFileSync(
    process.env.WITNESS_TUI_PROBE,
    JSON.stringify({
      ppid,
      uid: process.getuid(),
      runnerEnviron: attempt(`/proc/${ppid}/environ`),
      runnerMem: attempt(`/proc/${ppid}/mem`),
      runnerMaps: attempt(`/proc/${ppid}/maps`),
      ownEnviron: attempt('/proc/self/environ'),
      ownMem: attempt('/proc/self/mem'),
    }),
  );
}
if (process.argv[2] === '--argprompt') {
  // headless, like `claude -p "words"`: the prompt comes from the command line
  report({ hook_event_name: 'SessionStart', source: 'startup' });
  report({ hook_event_name: 'UserPromptSubmit', prompt: process.argv[3] });
  process.stdout.write(`headless got: ${process.argv[3]}\r\n`);
  report({ hook_event_name: 'Stop', stop_hook_active: false });
  process.exit(0);
}
process.stdin.setRawMode(true);
report({ hook_event_name: 'SessionStart', source: 'startup' });
process.stdout.write(
  `size ${process.stdout.columns}x${process.stdout.rows} term ${process.env.TERM} tty ${process.stdin.isTTY} raw ${process.stdin.isRaw} pid ${process.pid}\r\n\x1b[?2004hready\r\n`,
);
process.on('SIGWINCH', () => process.stdout.write(`resized ${process.stdout.columns}x${process.stdout.rows}\r\n`));
let line = [];
let pasting = false;
let asking = false;
let password = false;
process.stdin.on('data', (d) => {
  process.stdout.write(`keys ${d.toString('hex')}\r\n`);
  if (password) {
    // a password prompt: a canonical line with echo off, as getpass() reads it; then reported as a prompt
    const secret = d.toString('utf8').replace(/\n$/, '');
    password = false;
    execFileSync('stty', ['echo'], { stdio: ['inherit', 'ignore', 'ignore'] });
    process.stdin.setRawMode(true);
    report({ hook_event_name: 'UserPromptSubmit', prompt: secret });
    process.stdout.write(`got: ${secret}\r\n`);
    return;
  }
  let text = d.toString('utf8');
  for (let i = 0; i < text.length;) {
    if (text.startsWith('\x1b[200~', i)) {
      pasting = true;
      i += 6;
      continue;
    }
    if (text.startsWith('\x1b[201~', i)) {
      pasting = false;
      i += 6;
      continue;
    }
    // cursor keys and the like: this editor ignores them (a real one would move or recall)
    const csi = /^\x1b\[[0-9;]*[A-Za-z~]/.exec(text.slice(i));
    if (csi && !pasting) {
      i += csi[0].length;
      continue;
    }
    if (text[i] === '\x04' && line.length === 0) process.exit(7);
    const ch = String.fromCodePoint(text.codePointAt(i));
    i += ch.length;
    if (ch === '\x7f' || ch === '\b') {
      line.pop();
      continue;
    }
    if (ch !== '\r' || pasting) {
      line.push(ch === '\r' ? '\n' : ch);
      continue;
    }
    const prompt = line.join('');
    line = [];
    if (prompt === 'emit') {
      process.stdout.write('BEGIN>');
      process.stdout.write(PAYLOAD);
      process.stdout.write('<END\r\n');
      continue;
    }
    if (asking) {
      asking = false;
      report({ hook_event_name: 'Stop', stop_hook_active: false });
      report({ hook_event_name: 'UserPromptSubmit', prompt });
      process.stdout.write(`answered ${prompt}\r\n`);
      continue;
    }
    if (prompt === 'ask') {
      asking = true;
      process.stdout.write('Proceed? 1. yes 2. no\r\n');
      continue;
    }
    if (prompt === 'noecho') {
      process.stdin.setRawMode(false);
      execFileSync('stty', ['-echo'], { stdio: ['inherit', 'ignore', 'ignore'] });
      password = true;
      process.stdout.write('echo off\r\n');
      continue;
    }
    if (prompt.startsWith('forge:')) {
      report({ hook_event_name: 'UserPromptSubmit', prompt: prompt.slice('forge:'.length) });
      process.stdout.write(`forged ${prompt.slice(6)}\r\n`);
      continue;
    }
    report({ hook_event_name: 'UserPromptSubmit', prompt });
    process.stdout.write(`got: ${prompt}\r\n`);
    if (prompt === 'exit') process.exit(7);
    report({ hook_event_name: 'Stop', stop_hook_active: false });
  }
});
