#!/usr/bin/env node
// A stand-in agent for the walk-through, the README's tour and the tests: no model, just a
// plan. It runs under `warrant run`, which gives it WARRANT_URL, WARRANT_SESSION_ID,
// WARRANT_SESSION_UID and WARRANT_SESSION_TOKEN — and never a human token or the fleet key.
//
//   node stand-in-agent.mjs '<plan JSON>'
//
// plan: {
//   name, agentRoot?,
//   children?: [plan…]          sub-agents, each launched through `warrant run` (authenticated spawns);
//                               a child with "background": true runs alongside the next ones
//   messageParent?: text         tell the parent something (`message_parent`: the child → parent channel)
//   sendToSibling?: {name, text} send an agent message to a sibling session (found by title under the parent)
//   awaitReply?: true            wait for the answer to that message
//   awaitMessageAndReply?: text  wait for an agent message, then reply to it (an explicit reply)
//   exit?, envFile?, waitForSignal?, signalFile?, exitOnSignal?   (test hooks)
// }
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const plan = JSON.parse(process.argv[2] ?? '{}');
const cli = process.env.WARRANT_CLI; // path to dist/cli/main.js; else `warrant` on PATH
const url = process.env.WARRANT_URL;
const token = process.env.WARRANT_SESSION_TOKEN;
const self = Number(process.env.WARRANT_SESSION_ID);
const log = (line) => process.stderr.write(`[${plan.name ?? 'agent'} #${self}] ${line}\n`);

async function api(method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json?.error ?? ''} ${json?.message ?? ''}`);
  return json;
}

/** Leases inbox items until one of the wanted kind arrives; acknowledges what it took. */
async function nextMessage(kind, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { items } = await api('POST', `/api/v1/sessions/${self}/inbox/lease`, { runtime_idle: true });
    if (items.length > 0) await api('POST', `/api/v1/sessions/${self}/inbox/ack`, { ids: items.map((i) => i.id) });
    const hit = items.find((i) => i.kind === kind);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no ${kind} arrived`);
}

/** Waits until a child of this session with that title exists (its `warrant run` created it). */
async function sessionTitled(title) {
  for (let i = 0; i < 120; i++) {
    const { sessions } = await api('GET', `/api/v1/sessions?parent=${self}`);
    if (sessions.some((s) => s.title === title)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no child called ${title} appeared`);
}

function run(child) {
  const args = [
    'run',
    '--title',
    child.name ?? 'worker',
    '--agent-root',
    child.agentRoot ?? 'worker',
    '--',
    process.execPath,
    new URL(import.meta.url).pathname,
    JSON.stringify(child),
  ];
  const proc = cli ? spawn(process.execPath, [cli, ...args], { stdio: 'inherit' }) : spawn('warrant', args, { stdio: 'inherit' });
  return new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
}

if (plan.envFile) writeFileSync(plan.envFile, JSON.stringify(process.env, null, 2));

const background = [];
for (const child of plan.children ?? []) {
  const done = run(child);
  if (child.background) {
    background.push(done);
    await sessionTitled(child.name ?? 'worker'); // it exists before its siblings start (and look for it)
  } else if ((await done) !== (child.exit ?? 0)) log(`child ${child.name} exited unexpectedly`);
}

if (plan.messageParent) {
  await api('POST', `/api/v1/sessions/${self}/message_parent`, { content: plan.messageParent });
  log('told my parent');
}

let sent = null;
if (plan.sendToSibling) {
  const me = (await api('GET', `/api/v1/sessions/${self}`)).session;
  let sibling = null;
  for (let i = 0; i < 40 && !sibling; i++) {
    const { sessions } = await api('GET', `/api/v1/sessions?parent=${me.lineage_parent_id}`);
    sibling = sessions.find((s) => s.title === plan.sendToSibling.name) ?? null;
    if (!sibling) await new Promise((r) => setTimeout(r, 250));
  }
  if (!sibling) throw new Error(`no sibling called ${plan.sendToSibling.name}`);
  sent = await api('POST', '/api/v1/messages', { to: sibling.id, payload: plan.sendToSibling.text });
  log(`messaged #${sibling.id} (${sent.message?.id ?? sent.id})`);
}

if (plan.awaitMessageAndReply) {
  const item = await nextMessage('agent_message');
  const frame = JSON.parse(item.frame.text);
  await api('POST', '/api/v1/messages', { reply_to: frame.message_id, payload: plan.awaitMessageAndReply });
  log(`replied to ${frame.message_id}`);
}

if (plan.awaitReply) {
  const item = await nextMessage('agent_message');
  log(`got the reply: ${JSON.parse(item.frame.text).content}`);
}

for (const code of await Promise.all(background)) if (code !== 0) log(`a background child exited ${code}`);

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
