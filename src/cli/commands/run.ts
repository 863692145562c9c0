import type { Command } from 'commander';
import { clientOptionsFromEnv } from '../api-client.js';
import { CliExit } from '../output.js';

/**
 * `warrant run [--title T] [--parent REF] [--session REF] [--inbox] [--no-transcript] [--prompt TEXT] -- <command…>`:
 * starts an agent process under its own session identity and reports its runtime state.
 */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run a command as a Warrant session: create (or attach), export its identity, report its state, forward signals')
    .argument('<command...>', 'the agent command, after --')
    .option('--title <title>', 'the session title')
    .option('--agent-root <root>', 'the kind of agent (router, worker, claude-code, …)')
    .option('--provider <provider>', 'the agent provider (claude-code, codex, …)')
    .option('--parent <ref>', 'a declared parent (ignored inside a session: the calling session is the authenticated parent)')
    .option('--session <ref>', 'attach to an existing pending, stopped or failed session instead of creating one')
    .option(
      '--inbox',
      "write inbox items into the agent in its provider's input protocol (claude-code: `claude -p --input-format stream-json`); delivered only once the agent's prompt hook reports them",
    )
    .option('--no-transcript', "do not append the agent's transcript to the session")
    .option(
      '--prompt <text>',
      'your words for the agent, recorded as yours (cli.run_prompt, needs your human token) before it starts and put for every {prompt} in the command',
    )
    .option('--no-pty', "run an interactive agent on your terminal directly, not under the runner's PTY (inbox items are then not typed into it)")
    .passThroughOptions()
    .action(
      async (
        command: string[],
        opts: {
          title?: string;
          agentRoot?: string;
          provider?: string;
          parent?: string;
          session?: string;
          inbox?: boolean;
          transcript?: boolean;
          pty?: boolean;
          prompt?: string;
        },
      ) => {
        // first: with a human token on a terminal the runner re-executes itself without its credential in its environment
        const { bootRunner } = await import('../../runner/witness-boot.js');
        const boot = bootRunner(process.env, { pty: opts.pty !== false, inbox: opts.inbox === true });
        const { runUnderSession } = await import('../../runner/run.js');
        const { baseUrl } = clientOptionsFromEnv(boot.env);
        const code = await runUnderSession({
          command,
          ...(opts.title ? { title: opts.title } : {}),
          ...(opts.agentRoot ? { agentRoot: opts.agentRoot } : {}),
          ...(opts.provider ? { provider: opts.provider } : {}),
          ...(opts.parent ? { parent: opts.parent } : {}),
          ...(opts.session ? { session: opts.session } : {}),
          ...(opts.inbox ? { inbox: true } : {}),
          ...(opts.transcript === false ? { noTranscript: true } : {}),
          ...(opts.pty === false ? { noPty: true } : {}),
          ...(opts.prompt !== undefined ? { prompt: opts.prompt } : {}),
          credentialIsolated: boot.credentialIsolated,
          witnessUnavailable: boot.unavailable,
          env: boot.env,
          baseUrl,
          log: (line) => process.stderr.write(line + '\n'),
        });
        throw new CliExit(code);
      },
    );
}
