/**
 * The layer table of the README's architecture map, enforced: every relative import in `src/` (type-only ones
 * included) goes from a folder to one its "may import" column names, no module outside the composition layer
 * imports it, and the module graph has no cycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');
/** The composition layer: may import any folder; no domain folder may import it. */
const COMPOSITION = new Set(['main', 'cli', 'services', 'http']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative module specifiers of every static, re-export, type-only and dynamic import. */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found.filter((specifier) => specifier.startsWith('.'));
}

function resolveImport(from: string, specifier: string): string {
  const target = path.resolve(path.dirname(from), specifier);
  return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
}

/** `src/billing/x.ts` → `billing`; `src/services.ts` → `services`. */
function folderOf(file: string): string {
  const parts = path.relative(src, file).split(path.sep);
  return parts.length === 1 ? parts[0]!.replace(/\.ts$/, '') : parts[0]!;
}

function layerTable(): Map<string, Set<string>> {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const table = new Map<string, Set<string>>();
  for (const line of readme.split('\n')) {
    const match = /^\| `src\/([a-z-]+)\/` \|.*\| ([^|]+) \|$/.exec(line);
    if (!match || COMPOSITION.has(match[1]!)) continue;
    const column = match[2]!.trim();
    const allowed = column === 'nothing of the app' ? [] : column.split(',').map((name) => name.trim());
    table.set(match[1]!, new Set(allowed));
  }
  return table;
}

const files = sourceFiles(src);
const graph = new Map(
  files.map((file) => [file, importsOf(fs.readFileSync(file, 'utf8')).map((specifier) => resolveImport(file, specifier))]),
);

describe('architecture', () => {
  it('reads the import scanner right', () => {
    expect(
      importsOf(
        `import a from './a.js';\nimport type { B } from "../b.js";\nexport { c } from './c.js';\nexport * from './d.js';\nimport './e.js';\nconst f = await import('./f.js');\nimport x from 'fastify';`,
      ),
    ).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('documents every folder of src/ in the layer table', () => {
    const table = layerTable();
    expect(table.size).toBeGreaterThan(8);
    const folders = new Set(files.map(folderOf).filter((folder) => !COMPOSITION.has(folder)));
    expect([...folders].filter((folder) => !table.has(folder)).sort()).toEqual([]);
    for (const [folder, allowed] of table)
      for (const target of allowed) expect(table.has(target), `${folder} may import ${target}`).toBe(true);
  });

  it('imports only what the layer table allows', () => {
    const table = layerTable();
    const violations: string[] = [];
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      for (const target of targets) {
        const to = folderOf(target);
        if (to === from) continue;
        if (COMPOSITION.has(to) && !COMPOSITION.has(from))
          violations.push(`${path.relative(root, file)} → ${path.relative(root, target)} (the composition layer)`);
        else if (!COMPOSITION.has(from) && !table.get(from)?.has(to))
          violations.push(`${path.relative(root, file)} → ${path.relative(root, target)} (${from} may not import ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycle between modules, type-only imports included', () => {
    const cycles: string[][] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'visiting');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (!graph.has(target)) continue;
        if (state.get(target) === 'visiting') cycles.push(stack.slice(stack.indexOf(target)).map((item) => path.relative(root, item)));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('keeps Fastify inside src/http', () => {
    const outside = files.filter(
      (file) =>
        !file.startsWith(path.join(src, 'http') + path.sep) &&
        /from\s+['"](fastify|@fastify\/[^'"]+)['"]/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(outside.map((file) => path.relative(root, file))).toEqual([]);
  });
});
