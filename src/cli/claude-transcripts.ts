import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { TranscriptScan } from '../core/transcript-frames.js';

/**
 * The host side of `warrant conversations backfill` (docs/messages.md): where Claude Code keeps its
 * transcripts, which files count, and reading them — read-only, never following a symlink.
 * What a transcript's lines mean is core/transcript-frames.ts.
 */

/** `$CLAUDE_CONFIG_DIR` (a blank value counts as unset), else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  return configured ? configured : join(homedir(), '.claude');
}

interface TranscriptFile {
  path: string;
  /** Claude Code names a transcript after its session (conversation) id */
  conversationId: string;
}

/**
 * `projects/*\/*.jsonl`: regular files exactly one level below a project directory. Symlinked
 * projects or files are not followed; nothing deeper is read. Sorted, so reports are stable.
 */
export async function listTranscripts(root: string): Promise<{ projectsDir: string; found: boolean; files: TranscriptFile[] }> {
  const projectsDir = join(root, 'projects');
  const top = await lstat(projectsDir).catch(() => null);
  if (!top || !top.isDirectory()) return { projectsDir, found: false, files: [] };
  const files: TranscriptFile[] = [];
  for (const project of (await readdir(projectsDir)).sort()) {
    const dir = join(projectsDir, project);
    const st = await lstat(dir).catch(() => null);
    if (!st || !st.isDirectory()) continue;
    const entries = await readdir(dir).catch(() => [] as string[]);
    for (const name of entries.sort()) {
      if (!name.endsWith('.jsonl')) continue;
      const path = join(dir, name);
      const fst = await lstat(path).catch(() => null);
      if (!fst || !fst.isFile()) continue;
      files.push({ path, conversationId: basename(name, '.jsonl') });
    }
  }
  return { projectsDir, found: true, files };
}

/**
 * Reads one transcript line by line, read-only and without following a symlink swapped in
 * since it was listed. A file that cannot be opened or read, or is not UTF-8, is unreadable.
 */
export async function scanTranscript(path: string): Promise<{ ok: true; scan: TranscriptScan } | { ok: false; reason: string }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
  try {
    if (!(await handle.stat()).isFile()) return { ok: false, reason: 'not a regular file' };
    const scan = new TranscriptScan();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let rest = '';
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      rest += decoder.decode(chunk as Buffer, { stream: true });
      const lines = rest.split('\n');
      rest = lines.pop()!;
      for (const line of lines) scan.feed(line);
    }
    rest += decoder.decode();
    if (rest !== '') scan.feed(rest);
    return { ok: true, scan };
  } catch (error) {
    return { ok: false, reason: error instanceof TypeError ? 'not UTF-8' : ((error as NodeJS.ErrnoException).code ?? (error as Error).message) };
  } finally {
    await handle.close().catch(() => {});
  }
}
