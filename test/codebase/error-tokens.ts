import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Finds every refusal token src/ constructs: the first argument of `new WarrantError(…)` and of
 * the functions that forward their first argument to it, and the `error:` of a hand-built wire
 * body on a REST, MCP or web surface. A first argument with no string literal in it (a variable, a template) is reported as
 * dynamic, so a token built at run time cannot slip past the table unseen.
 */

/** Functions whose first parameter is the token they pass to `new WarrantError`. */
export const TOKEN_FORWARDERS = ['signInRefused', 'refuse', 'messageRefusal'] as const;

export interface TokenSite {
  file: string;
  line: number;
  token: string;
}

export interface TokenScan {
  tokens: TokenSite[];
  /** `file:line: <first argument>` for each construction whose token is not a literal. */
  dynamic: string[];
}

const CALL_RE = new RegExp(`(?:new\\s+WarrantError|\\b(?:${TOKEN_FORWARDERS.join('|')}))\\s*\\(`, 'g');
// a token's shape, so a zod message (`{ error: 'a sentence' }`) is not read as one
const BODY_RE = /[{,]\s*error:\s*(['"])([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\1/g;
/** Where a hand-built `{error: …}` body is an answer in the vocabulary (the runner socket's protocol is its own). */
const WIRE_SURFACES = /^(http|mcp|web)\//;
const LITERAL_RE = /'([^'\\]*)'|"([^"\\]*)"/g;

/** The text of the first argument of the call whose `(` is at `open`: up to the first comma or `)` at depth 0. */
function firstArgument(text: string, open: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) return text.slice(open + 1, i);
      depth--;
    } else if (ch === ',' && depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** A function declaration's own parameter list (`function refuse(token: …`) is not a call. */
function isDeclaration(text: string, index: number): boolean {
  return /\bfunction\s+$/.test(text.slice(Math.max(0, index - 12), index));
}

export function scanTokens(files: ReadonlyArray<{ file: string; text: string }>): TokenScan {
  const tokens: TokenSite[] = [];
  const dynamic: string[] = [];
  for (const { file, text } of files) {
    for (const m of text.matchAll(CALL_RE)) {
      if (isDeclaration(text, m.index)) continue;
      const arg = firstArgument(text, m.index + m[0].length - 1).trim();
      const line = lineOf(text, m.index);
      // a forwarder's own body passes its parameter on: `new WarrantError(token, …)` inside it
      // `cond ? 'a' : 'b'`: the tokens are the branches, not what the condition compares with
      const branches = arg.includes('?') ? arg.slice(arg.indexOf('?') + 1) : arg;
      const literals = arg.startsWith('`') ? [] : [...branches.matchAll(LITERAL_RE)].map((l) => l[1] ?? l[2]!);
      if (literals.length === 0) {
        dynamic.push(`${file}:${line}: ${arg}`);
        continue;
      }
      for (const token of literals) tokens.push({ file, line, token });
    }
    if (!WIRE_SURFACES.test(file)) continue;
    for (const m of text.matchAll(BODY_RE)) tokens.push({ file, line: lineOf(text, m.index), token: m[2]! });
  }
  return { tokens, dynamic };
}

export function sourceFiles(dir: string, root = dir): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path, root));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts'))
      out.push({ file: relative(root, path).split(sep).join('/'), text: readFileSync(path, 'utf8') });
  }
  return out;
}
