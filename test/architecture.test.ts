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

/** The gateway's model call (`execute`) and the one module that runs it: the model-call driver. */
const EXECUTE_MODULE = path.join(src, 'gateway', 'execute.ts');
const DRIVER_MODULES = new Set([EXECUTE_MODULE, path.join(src, 'gateway', 'protocols', 'driver.ts')]);

/**
 * The ways `file` runs a model call itself: a value import (or re-export) of `execute` (streamed calls) or
 * `executeWhole` (embeddings) from gateway/execute.ts, a namespace or dynamic import of that module, or a call of
 * an `execute` handed around as a dependency (`deps.execute(`, `gateway.execute(`, `driver.execute(`). Kysely's `.execute()` and `.transaction().execute(` are
 * not model calls and do not match.
 */
export function modelCallsIn(file: string, text: string): string[] {
  const found: string[] = [];
  const isExecuteModule = (specifier: string) => specifier.startsWith('.') && resolveImport(file, specifier) === EXECUTE_MODULE;
  for (const match of text.matchAll(/\b(?:import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    if (match[1] || !isExecuteModule(match[3]!)) continue;
    const names = match[2]!.split(',').map((name) => name.trim());
    for (const name of names.filter((name) => /^execute(?:Whole)?(?:\s+as\s+\w+)?$/.test(name)))
      found.push(`imports ${name.split(/\s/)[0]} from gateway/execute.ts`);
  }
  for (const match of text.matchAll(/\bimport\s+\*\s+as\s+\w+\s+from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    if (isExecuteModule(match[1] ?? match[2]!)) found.push('imports gateway/execute.ts whole');
  for (const match of text.matchAll(/\b(?:deps|gateway|driver)\s*\.\s*execute\s*\(/g)) found.push(`calls ${match[0]}`);
  return found;
}

const files = sourceFiles(src);
const graph = new Map(
  files.map((file) => [file, importsOf(fs.readFileSync(file, 'utf8')).map((specifier) => resolveImport(file, specifier))]),
);

/**
 * Route files sit under their URL prefix. The rule: the folder of a file under `src/http/routes/` is its URL
 * prefix — `src/http/routes/api/v1/wallet/topup.ts` may serve `/api/v1/wallet` and `/api/v1/wallet/…` (its own
 * name is free: `topup.ts` serves `/api/v1/wallet/topup-discount` as well as `/api/v1/wallet/top-up`), a file at
 * the root of `src/http/routes/` anything. The URLs are the real ones: the route plugins are registered on a bare
 * Fastify instance (with stand-in services: registering a route calls no service) and each route is traced to the
 * file whose code declared it, helpers under `routes/shared/` passed over for the file that called them.
 */
const routesDir = path.join(src, 'http', 'routes');

/** `src/http/routes/api/v1/wallet/card.ts` → `/api/v1/wallet`; a file at the root → ``. */
export function folderUrl(file: string): string {
  const folder = path.relative(routesDir, path.dirname(file)).split(path.sep).join('/');
  return folder === '' ? '' : `/${folder}`;
}

export function underFolder(url: string, file: string): boolean {
  const prefix = folderUrl(file);
  return prefix === '' || url === prefix || url.startsWith(`${prefix}/`);
}

/** A stand-in for every service: any property, call or number; never a promise. */
function standIn(): unknown {
  const target = function () {};
  const proxy: unknown = new Proxy(target, {
    get: (_target, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 1 : proxy),
    apply: () => proxy,
  });
  return proxy;
}

/** The file under `src/http/routes/` (outside `shared/`) whose code is on the stack, innermost first. */
function declaringFile(stack: string): string | undefined {
  const shared = path.join(routesDir, 'shared') + path.sep;
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts)/g)) {
    const file = match[1]!;
    if (file.startsWith(routesDir + path.sep) && !file.startsWith(shared)) return file;
  }
  return undefined;
}

async function declaredRoutes(): Promise<{ url: string; file: string }[]> {
  const { default: Fastify } = await import('fastify');
  const { registerRoutes } = await import('../src/http/routes/index.js');
  const app = Fastify();
  const routes: { url: string; file: string }[] = [];
  app.addHook('onRoute', (route) => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 200;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const file = declaringFile(stack);
    if (file !== undefined) routes.push({ url: route.url, file });
  });
  await registerRoutes(app as never, standIn() as never);
  // Never closed: its onClose hooks would call the stand-ins, and it holds no socket.
  await app.ready();
  return routes;
}

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

  it('reads a model call right, and Kysely’s execute is none', () => {
    const file = path.join(src, 'desktop', 'x.ts');
    expect(modelCallsIn(file, `import { execute, type GatewayCall } from '../gateway/execute.js';`)).toHaveLength(1);
    expect(modelCallsIn(file, `import { resolveModel, execute as run } from '../gateway/execute.js';`)).toHaveLength(1);
    expect(modelCallsIn(file, `export { execute } from '../gateway/execute.js';`)).toHaveLength(1);
    expect(modelCallsIn(file, `import {\n  executeWhole,\n  resolveModel,\n} from '../gateway/execute.js';`)).toHaveLength(1);
    expect(modelCallsIn(file, `import * as gw from '../gateway/execute.js';`)).toHaveLength(1);
    expect(modelCallsIn(file, `const call = await this.deps.execute({ request });`)).toHaveLength(1);
    expect(modelCallsIn(file, `return domains.gateway.execute(options);`)).toHaveLength(1);
    expect(modelCallsIn(file, `import type { ExecuteOptions, GatewayCall } from '../gateway/execute.js';`)).toEqual([]);
    expect(modelCallsIn(file, `import { execute } from '../billing/idempotency.js';`)).toEqual([]);
    expect(
      modelCallsIn(file, `await this.deps.storage.db.transaction().execute(async (trx) => trx.selectFrom('t').selectAll().execute());`),
    ).toEqual([]);
  });

  it('has no model call outside the driver', () => {
    const outside = files
      .filter((file) => !DRIVER_MODULES.has(file))
      .flatMap((file) => modelCallsIn(file, fs.readFileSync(file, 'utf8')).map((call) => `${path.relative(root, file)}: ${call}`));
    expect(outside).toEqual([]);
  });

  it('lets gateway/responses import gateway/protocols, never the other way', () => {
    const protocols = path.join(src, 'gateway', 'protocols') + path.sep;
    const responses = path.join(src, 'gateway', 'responses') + path.sep;
    const back = [...graph]
      .filter(([file]) => file.startsWith(protocols))
      .flatMap(([file, targets]) => targets.filter((target) => target.startsWith(responses)).map(() => path.relative(root, file)));
    expect(back).toEqual([]);
  });

  it('keeps Fastify inside src/http', () => {
    const outside = files.filter(
      (file) =>
        !file.startsWith(path.join(src, 'http') + path.sep) &&
        /from\s+['"](fastify|@fastify\/[^'"]+)['"]/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(outside.map((file) => path.relative(root, file))).toEqual([]);
  });

  it("reads a route file's folder as its URL prefix", () => {
    const file = (name: string) => path.join(routesDir, ...name.split('/'));
    expect(folderUrl(file('api/v1/wallet/topup.ts'))).toBe('/api/v1/wallet');
    expect(underFolder('/api/v1/wallet/top-up', file('api/v1/wallet/topup.ts'))).toBe(true);
    expect(underFolder('/api/v1/wallet', file('api/v1/wallet/index.ts'))).toBe(true);
    expect(underFolder('/api/v1/purchase-preferences', file('api/v1/wallet/topup.ts'))).toBe(false);
    expect(underFolder('/api/v1/wallets', file('api/v1/wallet/index.ts'))).toBe(false);
    expect(underFolder('/r/:code', file('api/v1/promotions.ts'))).toBe(false);
    expect(underFolder('/healthz', file('health.ts'))).toBe(true);
  });

  it('keeps route files under their URL prefix', async () => {
    const routes = await declaredRoutes();
    // Every route module takes part (a broken trace would pass vacuously).
    expect(routes.length).toBeGreaterThan(250);
    expect(new Set(routes.map((route) => route.file)).size).toBeGreaterThan(60);
    const outside = routes
      .filter((route) => !underFolder(route.url, route.file))
      .map((route) => `${path.relative(routesDir, route.file)} serves ${route.url}, outside ${folderUrl(route.file)}`);
    expect([...new Set(outside)]).toEqual([]);
  });
});
