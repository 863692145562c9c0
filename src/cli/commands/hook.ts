import type { Command } from 'commander';
import { ApiClient, HOOK_TIMEOUT_MS, clientOptionsFromEnv, type ApiError } from '../api-client.js';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A hook never blocks the agent: one line on stderr, exit 0 (spec 08). */
function fail(what: string, error: unknown): void {
  const e = error as Partial<ApiError> & Error;
  process.stderr.write(`warrant hook: ${what}: ${e.token ? `${e.token}: ` : ''}${e.message}\n`);
}

export function registerHookCommand(program: Command): void {
  const hook = program.command('hook').description('agent CLI hooks (install with `warrant integrate`)');
  hook
    .command('claude-code')
    .description('Claude Code hook: SessionStart reports the conversation and started, UserPromptSubmit started, Stop idle; never exits')
    .action(async () => {
      let input: Record<string, unknown> = {};
      try {
        const text = await readStdin();
        input = text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch (error) {
        return fail('could not read the hook JSON on stdin', error);
      }
      const sessionId = process.env.WARRANT_SESSION_ID;
      const token = process.env.WARRANT_SESSION_TOKEN;
      if (!sessionId || !token) return fail('not inside a Warrant session', new Error('WARRANT_SESSION_ID and WARRANT_SESSION_TOKEN are unset (start the agent with `warrant run`)'));
      const client = new ApiClient({ baseUrl: clientOptionsFromEnv(process.env).baseUrl, token, timeoutMs: HOOK_TIMEOUT_MS });
      const event = String(input.hook_event_name ?? '');
      try {
        if (event === 'SessionStart') {
          if (typeof input.session_id === 'string' && input.session_id) {
            await client.json('POST', `/api/v1/sessions/${sessionId}/conversation`, {
              provider: 'claude-code',
              conversation_id: input.session_id,
              ...(typeof input.transcript_path === 'string' ? { transcript_path: input.transcript_path } : {}),
            });
          }
          await client.json('POST', `/api/v1/sessions/${sessionId}/runtime`, { state: 'started' });
        } else if (event === 'UserPromptSubmit') {
          await client.json('POST', `/api/v1/sessions/${sessionId}/runtime`, { state: 'started' });
        } else if (event === 'Stop') {
          await client.json('POST', `/api/v1/sessions/${sessionId}/runtime`, { state: 'idle' });
        }
      } catch (error) {
        fail(`could not report ${event || 'the event'}`, error);
      }
    });
  hook
    .command('codex [payload]')
    .description('Codex notify hook: a finished turn reports idle')
    .action(async (payload?: string) => {
      const sessionId = process.env.WARRANT_SESSION_ID;
      const token = process.env.WARRANT_SESSION_TOKEN;
      if (!sessionId || !token) return fail('not inside a Warrant session', new Error('WARRANT_SESSION_ID and WARRANT_SESSION_TOKEN are unset'));
      try {
        const event = payload ? (JSON.parse(payload) as { type?: string }) : {};
        if (event.type && event.type !== 'agent-turn-complete') return;
        await new ApiClient({ baseUrl: clientOptionsFromEnv(process.env).baseUrl, token, timeoutMs: HOOK_TIMEOUT_MS }).json('POST', `/api/v1/sessions/${sessionId}/runtime`, { state: 'idle' });
      } catch (error) {
        fail('could not report idle', error);
      }
    });
}
