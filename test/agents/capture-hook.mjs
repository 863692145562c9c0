// A capturing hook for the agent CLI tests: appends one JSON line per call to $CAPTURE_FILE
// with its label (argv[2]), the rest of argv (Codex notify passes its JSON there), stdin
// (Claude Code and Codex hooks pass JSON there), cwd and the environment. Prints nothing.
import { appendFileSync, readFileSync } from 'node:fs';

let stdin = '';
try {
  if (!process.stdin.isTTY) stdin = readFileSync(0, 'utf8');
} catch {
  // no stdin (Codex notify)
}
const file = process.env.CAPTURE_FILE;
if (file) {
  const record = { label: process.argv[2] ?? '', argv: process.argv.slice(3), stdin, cwd: process.cwd(), env: process.env };
  appendFileSync(file, JSON.stringify(record) + '\n');
}
