// Builds the terminal witness's native helper (native/witness.c, an N-API addon) with the
// node-gyp that ships inside npm, against this Node's own headers: no network, no new
// dependency. Runs as part of `npm run build`. A helper that cannot be built is not an error:
// `warrant run` then does not witness the terminal and says so (docs/human-messages.md).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const dir = resolve('native');
const output = join(dir, 'build', 'Release', 'witness.node');
const sources = ['witness.c', 'binding.gyp'].map((f) => join(dir, f));
const warn = (why) => process.stderr.write(`build-native: the terminal witness helper was not built (${why}); \`warrant run\` will not witness terminals.\n`);

if (process.platform !== 'linux') {
  warn(`not supported on ${process.platform}`);
  process.exit(0);
}
if (existsSync(output) && sources.every((s) => statSync(s).mtimeMs <= statSync(output).mtimeMs)) process.exit(0);

/** npm's own node-gyp: beside the npm that runs this script, else beside this Node. */
function nodeGyp() {
  const candidates = [];
  if (process.env.npm_execpath) candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((c) => existsSync(c)) ?? null;
}

const gyp = nodeGyp();
if (!gyp) {
  warn('node-gyp was not found beside npm');
  process.exit(0);
}
// this Node's headers where it was installed with them; else node-gyp's own cache (offline: it fails, and we say so)
const installRoot = resolve(dirname(process.execPath), '..');
const nodedir = existsSync(join(installRoot, 'include', 'node', 'node_api.h')) ? ['--nodedir', installRoot] : [];
const r = spawnSync(process.execPath, [gyp, 'rebuild', '--directory', dir, ...nodedir, '--loglevel', 'error'], {
  stdio: ['ignore', 'ignore', 'pipe'],
  encoding: 'utf8',
});
if (r.status !== 0 || !existsSync(output)) {
  warn(`node-gyp exited ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`);
  process.exit(0);
}
