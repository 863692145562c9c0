// A hook for the agent CLI tests that reads its payload and prints argv[2] on stdout, as a
// hook that talks to the agent would.
import { readFileSync } from 'node:fs';

try {
  readFileSync(0);
} catch {
  // no stdin
}
process.stdout.write(process.argv[2] ?? '');
