#!/usr/bin/env node
// The agent hook entry point: `node dist/hook/hook-main.cjs claude-code|codex [payload]`.
// CommonJS, and nothing but node: modules and hook-client.cts are loaded, so a hook costs
// a Node start and milliseconds.
import hookClient = require('./hook-client.cjs');

async function main(): Promise<void> {
  const [provider = '', argvPayload] = process.argv.slice(2);
  // Codex `notify` passes the payload as an argument and no stdin; don't wait on a terminal
  const stdinText = argvPayload !== undefined ? '' : await hookClient.readStdin().catch(() => '');
  const out = await hookClient.runHook(provider, stdinText, argvPayload, process.env);
  if (out) process.stdout.write(out);
}

// exit 0 whatever happened: a hook never blocks its agent
main()
  .catch(() => {})
  .finally(() => process.exit(0));
