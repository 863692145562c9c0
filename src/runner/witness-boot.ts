import { isatty } from 'node:tty';
import { tokenKindOf } from '../core/tokens.js';
import { CREDENTIAL_FD_VARIABLE, reexecWithoutCredentials, takeCredentials } from './credential-reexec.js';
import { loadWitnessNative } from './native-witness.js';

/** How `warrant run` starts, as far as the terminal witness is concerned. */
interface RunnerBoot {
  /** the environment the runner works with (credentials included, in memory only) */
  env: NodeJS.ProcessEnv;
  /** this process was re-executed: no credential in its environment block, and it is non-dumpable */
  credentialIsolated: boolean;
  /** why the terminal cannot be witnessed, when a witness was wanted */
  unavailable: string | null;
}

/** A witness is wanted: a person's human token, their terminal on standard input, the runner's PTY. */
function wantsWitness(env: NodeJS.ProcessEnv, flags: { pty: boolean; inbox: boolean }): boolean {
  if (!flags.pty || flags.inbox || env.WARRANT_SESSION_TOKEN) return false;
  return !!env.WARRANT_TOKEN && tokenKindOf(env.WARRANT_TOKEN) === 'human' && isatty(0);
}

/**
 * Called first thing by `warrant run`. When a witness is wanted, re-executes this process with
 * its credentials in a pipe (it does not return then); in the re-executed process, refuses
 * debugging before it reads them. docs/human-messages.md, "the agent terminal".
 */
export function bootRunner(env: NodeJS.ProcessEnv, flags: { pty: boolean; inbox: boolean }): RunnerBoot {
  if (env[CREDENTIAL_FD_VARIABLE] !== undefined) {
    const loaded = loadWitnessNative();
    if ('error' in loaded) {
      // cannot refuse debugging: the credentials are read anyway (the agent must still run) but nothing is witnessed
      return { env: takeCredentials(env) ?? env, credentialIsolated: false, unavailable: loaded.error };
    }
    let unavailable: string | null = null;
    try {
      loaded.native.setNonDumpable();
      if (loaded.native.isDumpable()) unavailable = 'the OS did not make the runner non-dumpable';
    } catch (error) {
      unavailable = (error as Error).message;
    }
    const merged = takeCredentials(env);
    if (!merged) return { env, credentialIsolated: false, unavailable: 'the credential pipe could not be read' };
    return { env: merged, credentialIsolated: unavailable === null, unavailable };
  }
  if (!wantsWitness(env, flags)) return { env, credentialIsolated: false, unavailable: null };
  const loaded = loadWitnessNative();
  if ('error' in loaded) return { env, credentialIsolated: false, unavailable: loaded.error };
  const why = reexecWithoutCredentials(loaded.native, env);
  return { env, credentialIsolated: false, unavailable: `the runner could not re-execute itself without its credential (${why})` };
}
