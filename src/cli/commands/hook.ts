import type { Command } from 'commander';
import hookClient from '../../hook/hook-client.cjs';

/**
 * `warrant hook claude-code|codex [payload]`: the same hook as `dist/hook/hook-main.cjs` (which
 * `warrant integrate` writes, because it starts in milliseconds), for configurations that name
 * the CLI. Never blocks the agent: exit 0, problems only as a JSON `systemMessage`.
 */
export function registerHookCommand(program: Command): void {
  program
    .command('hook')
    .description('agent CLI hook (install with `warrant integrate`): hands the event on stdin to `warrant run`')
    .argument('<provider>', 'claude-code or codex')
    .argument('[payload]', "Codex notify's JSON payload")
    .action(async (provider: string, payload?: string) => {
      const stdinText = payload !== undefined ? '' : await hookClient.readStdin().catch(() => '');
      const out = await hookClient.runHook(provider, stdinText, payload, process.env);
      if (out) process.stdout.write(out);
    });
}
