#!/usr/bin/env node
// The agent hook entry point: `node dist/hook/hook-main.js claude-code|codex [payload]`.
// Nothing but node: modules and hook-client.ts are loaded, so a hook costs milliseconds.
import { readStdin, runHook } from './hook-client.js';

async function main(): Promise<void> {
  const [provider = '', argvPayload] = process.argv.slice(2);
  // Codex `notify` passes the payload as an argument and no stdin; don't wait on a terminal
  const stdinText = argvPayload !== undefined ? '' : await readStdin().catch(() => '');
  const out = await runHook(provider, stdinText, argvPayload, process.env);
  if (out) process.stdout.write(out);
}

// exit 0 whatever happened: a hook never blocks its agent
main()
  .catch(() => {})
  .finally(() => process.exit(0));
