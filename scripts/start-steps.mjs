// The steps of `npm start` (scripts/start.mjs), apart so tests can drive them on a scratch tree:
// whether dist/ is current, and putting the `warrant` command on PATH.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** What a build reads: a change to any of these makes dist/ stale. */
export const BUILD_INPUTS = ['src', 'scripts/build-assets.mjs', 'scripts/build-native.mjs', 'native', 'package.json', 'package-lock.json', 'tsconfig.json'];
export const BUILD_STAMP = join('dist', '.build-stamp');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'build' || entry === 'node_modules') continue; // outputs, not inputs
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** null when dist/ is current, else why it must be built. */
export function staleBecause(root) {
  const stamp = join(root, BUILD_STAMP);
  if (!existsSync(join(root, 'dist', 'cli', 'main.js')) || !existsSync(stamp)) return 'no build yet';
  const built = statSync(stamp).mtimeMs;
  const changed = BUILD_INPUTS.find((p) => newestMtime(join(root, p)) > built);
  return changed ? `${changed} changed since the last build` : null;
}

export function writeStamp(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, BUILD_STAMP), `${new Date().toISOString()}\n`);
  const cli = join(root, 'dist', 'cli', 'main.js');
  if (existsSync(cli)) chmodSync(cli, 0o755);
}

/** Where `warrant` is found on PATH (the first match), or null. */
export function onPath(name, pathValue) {
  for (const dir of (pathValue ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function sameFile(a, b) {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** npm's global bin directory (where `npm link` and `npm install -g` put commands). */
export function npmGlobalBin(env) {
  if (env.WARRANT_BIN_DIR) return resolve(env.WARRANT_BIN_DIR);
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['prefix', '-g'], { encoding: 'utf8', env });
  const prefix = r.status === 0 ? r.stdout.trim() : null;
  if (!prefix) return null;
  return process.platform === 'win32' ? prefix : join(prefix, 'bin');
}

/**
 * Puts `warrant` on PATH: a symlink in npm's global bin directory (or WARRANT_BIN_DIR) to this
 * checkout's dist/cli/main.js, unless `warrant` already resolves there. Never replaces a
 * `warrant` that is something else (another checkout, a global install). Returns a sentence.
 */
export function linkCommand(root, env) {
  const target = join(resolve(root), 'dist', 'cli', 'main.js');
  const found = onPath('warrant', env.PATH);
  if (found && sameFile(found, target)) return `\`warrant\` is on PATH (${found}).`;
  if (found) return `\`warrant\` on PATH is ${found}, not this checkout; left as it is (run this checkout's with \`node ${target}\`).`;
  const binDir = npmGlobalBin(env);
  if (!binDir) return `\`warrant\` is not on PATH: run \`npm link\` here, or add an alias for \`node ${target}\`.`;
  const link = join(binDir, 'warrant');
  try {
    mkdirSync(binDir, { recursive: true });
    let exists = false;
    try {
      lstatSync(link);
      exists = true;
    } catch {
      // nothing there yet
    }
    if (exists && !sameFile(link, target)) return `${link} exists and is not this checkout's; left as it is.`;
    if (!exists) symlinkSync(target, link);
    const reachable = onPath('warrant', env.PATH) !== null && sameFile(onPath('warrant', env.PATH), target);
    return reachable ? `\`warrant\` is now on PATH (${link} → ${readlinkSync(link)}).` : `\`warrant\` is linked at ${link}; add ${binDir} to PATH to use it.`;
  } catch (error) {
    return `\`warrant\` is not on PATH (${binDir} is not writable: ${error.code ?? error.message}); run \`npm link\` with the rights to write there, or add an alias for \`node ${target}\`.`;
  }
}

// `node scripts/start-steps.mjs --stamp` ends `npm run build`: dist/ is current as of now
if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename) && process.argv[2] === '--stamp') writeStamp(process.cwd());
