#!/usr/bin/env node
// A stand-in agent for the walk-through and the tests: no model, just a plan.
// Usage: node stand-in-agent.mjs '<plan JSON>'
//   plan: { name, children?: [plan…], exit?: number, envFile?: path, waitForSignal?: bool }
// Children are launched through `warrant run`, so every spawn edge is authenticated.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const plan = JSON.parse(process.argv[2] ?? '{}');
const cli = process.env.WARRANT_CLI; // path to dist/cli/main.js, else `warrant` on PATH

if (plan.envFile) writeFileSync(plan.envFile, JSON.stringify(process.env, null, 2));

for (const child of plan.children ?? []) {
  const args = ['run', '--title', child.name ?? 'worker', '--agent-root', child.agentRoot ?? 'worker', '--', process.execPath, new URL(import.meta.url).pathname, JSON.stringify(child)];
  const r = cli ? spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' }) : spawnSync('warrant', args, { stdio: 'inherit' });
  if (r.status !== (child.exit ?? 0)) process.stderr.write(`${plan.name}: child ${child.name} exited ${r.status}\n`);
}

if (plan.waitForSignal) {
  const onSignal = (signal) => {
    if (plan.signalFile) writeFileSync(plan.signalFile, signal);
    process.exit(plan.exitOnSignal ?? 0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.stdout.write('ready\n');
  setInterval(() => {}, 1000);
} else {
  process.exit(plan.exit ?? 0);
}
