/**
 * The script of a worker thread written as a TypeScript module under src/. Built (dist/), the compiled `.js`
 * beside the caller is the script. Run from the sources (the test runner transforms the modules it imports but
 * not a worker thread's), the `.ts` source is bundled once per content with esbuild, a development dependency
 * never loaded in service, into the temp directory; its packages stay outside the bundle and resolve from the
 * source's folder, as the compiled file's would.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bundles = new Map<string, URL>();

/** `compiled` is `new URL('./x.js', import.meta.url)` of the module starting the worker. */
export function workerScript(compiled: URL): URL {
  const file = fileURLToPath(compiled);
  if (fs.existsSync(file)) return compiled;
  const source = file.replace(/\.js$/, '.ts');
  if (!fs.existsSync(source)) throw new Error(`worker script ${file} not found, nor its source ${source}`);
  const known = bundles.get(source);
  if (known) return known;
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const built = esbuild.buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    write: false,
    // Packages are required as from the source file, wherever the bundle is written.
    banner: { js: `require = require('node:module').createRequire(${JSON.stringify(source)});` },
  });
  const code = built.outputFiles[0]!.text;
  const name = `${path.basename(source, '.ts')}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.cjs`;
  const target = path.join(os.tmpdir(), 'switchyard-worker-scripts', name);
  if (!fs.existsSync(target)) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // Written under a unique name and renamed: test processes running at once never see half a file.
    const partial = `${target}.${process.pid}.${Date.now()}.partial`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, target);
  }
  const url = pathToFileURL(target);
  bundles.set(source, url);
  return url;
}
