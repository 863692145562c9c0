// Times process starts from a small process of its own (bench/hook-bench.ts): forking the
// bench's own large heap (hundreds of MB at 100,000 sessions) added 20–35 ms to every start,
// a cost an agent spawning its hook does not pay. Reads one JSON spec on stdin:
// {"runs":[{"name","file","args","env","input"|null,"n","warmup"}]}; writes
// {"<name>":{"samples":[ms…],"failures":[exit codes other than 0]}} on stdout.
import { spawn } from 'node:child_process';

function once(run) {
  return new Promise((resolve, reject) => {
    const child = spawn(run.file, run.args, { env: run.env, stdio: [run.input === null ? 'ignore' : 'pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
    if (run.input !== null) child.stdin.end(run.input);
  });
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const spec = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const out = {};
for (const run of spec.runs) {
  const failures = [];
  for (let i = 0; i < run.warmup; i++) {
    const code = await once(run);
    if (code !== 0) failures.push(code);
  }
  const samples = [];
  for (let i = 0; i < run.n; i++) {
    const t0 = process.hrtime.bigint();
    const code = await once(run);
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (code !== 0) failures.push(code);
  }
  out[run.name] = { samples, failures };
}
process.stdout.write(JSON.stringify(out));
