import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Exports nothing imports: for every module, the names it exports (declared or re-exported)
 * that no other file in the scanned trees imports by name, re-exports, or reaches through a
 * namespace (`import * as`, an un-destructured `await import(…)`), which counts as using them all.
 */

export interface ModuleText {
  /** absolute path */
  path: string;
  text: string;
}

interface Use {
  /** the module used, absolute path without extension */
  target: string;
  /** the names used; null: all of them */
  names: string[] | null;
}

const strip = (p: string) => p.replace(/\.(js|ts|tsx|mjs|mts)$/, '');

function resolveSpecifier(from: string, specifier: string, known: ReadonlySet<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = strip(resolve(dirname(from), specifier));
  if (known.has(base)) return base;
  if (known.has(join(base, 'index'))) return join(base, 'index');
  return base;
}

function namesOf(clause: ts.NamedImportBindings | ts.NamedExportBindings | undefined): string[] | null {
  if (!clause) return [];
  if (ts.isNamespaceImport(clause) || ts.isNamespaceExport(clause)) return null;
  return clause.elements.map((e) => (e.propertyName ?? e.name).text);
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The names a module exports (declarations and `export { … }`), and what it imports or re-exports. */
function scanModule(m: ModuleText, known: ReadonlySet<string>): { exports: string[]; uses: Use[] } {
  const sf = ts.createSourceFile(m.path, m.text, ts.ScriptTarget.Latest, true, m.path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const exports: string[] = [];
  const uses: Use[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolveSpecifier(m.path, st.moduleSpecifier.text, known);
      if (!target) continue;
      const clause = st.importClause;
      const names = clause ? namesOf(clause.namedBindings) : [];
      uses.push({ target, names: names === null ? null : [...names, ...(clause?.name ? ['default'] : [])] });
    } else if (ts.isExportDeclaration(st)) {
      const names = namesOf(st.exportClause);
      if (st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        const target = resolveSpecifier(m.path, st.moduleSpecifier.text, known);
        if (target) uses.push({ target, names });
        if (names) exports.push(...(st.exportClause as ts.NamedExports).elements.map((e) => e.name.text));
      } else if (st.exportClause && ts.isNamedExports(st.exportClause)) {
        exports.push(...st.exportClause.elements.map((e) => e.name.text));
      }
    } else if (ts.isExportAssignment(st)) {
      exports.push('default');
    } else if (isExported(st)) {
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) exports.push(d.name.text);
      } else if (
        (ts.isFunctionDeclaration(st) ||
          ts.isClassDeclaration(st) ||
          ts.isInterfaceDeclaration(st) ||
          ts.isTypeAliasDeclaration(st) ||
          ts.isEnumDeclaration(st)) &&
        st.name
      ) {
        exports.push(st.name.text);
      }
    }
  }
  // dynamic imports anywhere: `const { a, b } = await import('x')` names a and b; any other use, all
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const target = resolveSpecifier(m.path, node.arguments[0].text, known);
      if (target) {
        let up: ts.Node = node.parent;
        while (ts.isAwaitExpression(up) || ts.isParenthesizedExpression(up)) up = up.parent;
        const binding = ts.isVariableDeclaration(up) && ts.isObjectBindingPattern(up.name) ? up.name : null;
        const access = ts.isPropertyAccessExpression(up) ? up.name.text : null;
        const names = binding ? binding.elements.map((e) => ((e.propertyName ?? e.name) as ts.Identifier).text) : access ? [access] : null;
        uses.push({ target, names });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { exports, uses };
}

/** `relative/path.ts: name` for each export no other module uses. */
export function unusedExports(modules: readonly ModuleText[], root: string): string[] {
  const known = new Set(modules.map((m) => strip(m.path)));
  const scans = modules.map((m) => ({ m, ...scanModule(m, known) }));
  const used = new Map<string, Set<string> | 'all'>();
  for (const s of scans) {
    for (const u of s.uses) {
      if (u.target === strip(s.m.path)) continue;
      const prev = used.get(u.target);
      if (prev === 'all') continue;
      if (u.names === null) used.set(u.target, 'all');
      else used.set(u.target, new Set([...(prev ?? []), ...u.names]));
    }
  }
  const out: string[] = [];
  for (const s of scans) {
    const u = used.get(strip(s.m.path));
    if (u === 'all') continue;
    for (const name of s.exports) if (!u?.has(name)) out.push(`${relative(root, s.m.path).split(sep).join('/')}: ${name}`);
  }
  return out.sort();
}

export function readModules(dirs: readonly string[]): ModuleText[] {
  const out: ModuleText[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'results' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|tsx|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push({ path, text: readFileSync(path, 'utf8') });
    }
  };
  for (const d of dirs) walk(d);
  return out;
}
