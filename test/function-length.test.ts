/**
 * Functions stay short enough to read in one screen: no function in `src/` (generated code aside) is longer than
 * `MAX_LINES` lines, counted from the first line of its declaration to the line of its closing brace. The files are
 * parsed with the TypeScript compiler, so every kind of function counts: declarations, methods, constructors,
 * accessors, function expressions and arrow functions.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
const EXCLUDED = [path.join(src, 'appserver', 'generated')];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return EXCLUDED.includes(full) ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** A readable name: the declared one, else the variable, property or assignment the function is given to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText();
  }
  if (ts.isBinaryExpression(parent)) return parent.left.getText();
  return '<anonymous>';
}

export interface LongFunction {
  lines: number;
  where: string;
  name: string;
}

/** Every function of `text` longer than `maxLines` lines. */
export function longFunctions(fileName: string, text: string, maxLines: number): LongFunction[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const start = file.getLineAndCharacterOfPosition(declaration.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(declaration.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxLines) found.push({ lines, where: `${fileName}:${start + 1}`, name: nameOf(declaration) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('function length', () => {
  it('measures declarations, methods and arrow functions from their first line to their closing brace', () => {
    const body = (count: number) => Array.from({ length: count }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `export function short() {\n${body(3)}\n}`,
      `export function long() {\n${body(5)}\n}`,
      `class C {\n  method() {\n${body(5)}\n  }\n}`,
      `const arrow = async () => {\n${body(5)}\n};`,
      `const object = { handler: function () {\n${body(5)}\n} };`,
    ].join('\n');
    expect(longFunctions('sample.ts', text, 6)).toEqual([
      { lines: 7, where: 'sample.ts:6', name: 'long' },
      { lines: 7, where: 'sample.ts:14', name: 'method' },
      { lines: 7, where: 'sample.ts:22', name: 'arrow' },
      { lines: 7, where: 'sample.ts:29', name: 'handler' },
    ]);
  });

  it(`no function in src/ is longer than ${MAX_LINES} lines`, () => {
    const found = sourceFiles(src).flatMap((file) =>
      longFunctions(path.relative(root, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8'), MAX_LINES),
    );
    const report = found.sort((a, b) => b.lines - a.lines).map((entry) => `${entry.lines} ${entry.where} ${entry.name}`);
    expect(report).toEqual([]);
  });
});
