// `npm start`: builds only when dist/ is older than its sources (and says what it builds),
// puts the `warrant` command on PATH, then runs `warrant serve` in this process.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { linkCommand, staleBecause, writeStamp } from './start-steps.mjs';

const root = resolve(import.meta.dirname, '..');
const say = (line) => process.stderr.write(`warrant: ${line}\n`);

const why = staleBecause(root);
if (why) {
  const started = Date.now();
  say(`building (${why}): TypeScript, web assets, the terminal witness helper — about 30 s the first time…`);
  const built = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    say('the build failed (above); nothing was started.');
    process.exit(built.status ?? 1);
  }
  writeStamp(root);
  say(`built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
} else say('the build is current (dist/ is newer than src/); starting.');

if (process.env.WARRANT_NO_LINK !== '1') say(linkCommand(root, process.env));

// serve in this process, so signals (Ctrl-C, a process manager's SIGTERM) reach the server's drain directly
process.argv = [process.argv[0], resolve(root, 'dist/cli/main.js'), 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(resolve(root, 'dist/cli/main.js')).href);
