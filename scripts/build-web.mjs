// Bundles the web front end (web/<page>/main.tsx → dist/web/<page>.html + hashed assets) with esbuild.
// Every folder of web/ that holds a main.tsx is a page; web/shared/ is imported by them. Assets get content
// hashes in their names (served with a year-long immutable cache); the HTML pages are small and never cached.
// The build prints each page's first-load size gzipped and fails when one exceeds the budget.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const webDir = path.join(root, 'web');
export const WEB_OUT_DIR = path.join(root, 'dist', 'web');
/** First load of one page (its HTML, script and stylesheet), gzipped. */
export const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

const TITLES = { dashboard: 'Switchyard', login: 'Sign in · Switchyard', admin: 'Operator console · Switchyard' };

function pages() {
  return fs
    .readdirSync(webDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(webDir, entry.name, 'main.tsx')))
    .map((entry) => entry.name)
    .sort();
}

function html(page, script, stylesheet) {
  const title = TITLES[page] ?? `${page} · Switchyard`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
${stylesheet ? `<link rel="stylesheet" href="/assets/${stylesheet}">\n` : ''}<script type="module" src="/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>This page needs JavaScript. The API reference is at <a href="/docs">/docs</a>.</noscript></div>
</body>
</html>
`;
}

/** Newest modification time of the front end's sources (to rebuild only when they changed). */
export function newestWebSource(dir = webDir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestWebSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Builds into a fresh folder beside the target, then swaps it in, so a running service never serves half a
 * build (pages and their hashed assets change together).
 */
export async function buildWeb({ quiet = false, outDir = WEB_OUT_DIR } = {}) {
  const staging = `${outDir}.staging-${process.pid}-${Date.now()}`;
  const assetsDir = path.join(staging, 'assets');
  fs.mkdirSync(assetsDir, { recursive: true });
  const entryPoints = Object.fromEntries(pages().map((page) => [page, path.join(webDir, page, 'main.tsx')]));
  const result = await esbuild.build({
    entryPoints,
    absWorkingDir: root,
    outdir: assetsDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    sourcemap: false,
    target: ['chrome110', 'firefox110', 'safari16'],
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  // The human check's proof-of-work worker (the `altcha` widget's PBKDF2 solver), served from /assets like the
  // rest: the pages' CSP allows same-origin workers only, so the widget is the build without inline workers.
  fs.copyFileSync(path.join(root, 'node_modules', 'altcha', 'dist', 'workers', 'pbkdf2.js'), path.join(assetsDir, 'altcha-pbkdf2.js'));
  const report = [];
  let overBudget = false;
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    // Dynamic imports (loaded on demand, e.g. the QR encoder) are entry points too, but not pages.
    if (!output.entryPoint || !file.endsWith('.js') || !/^web\/[^/]+\/main\.tsx$/.test(output.entryPoint)) continue;
    const page = path.basename(path.dirname(output.entryPoint));
    const script = path.basename(file);
    const stylesheet = output.cssBundle ? path.basename(output.cssBundle) : undefined;
    const page_html = html(page, script, stylesheet);
    fs.writeFileSync(path.join(staging, `${page}.html`), page_html);
    // First load: the page, its script with every static import (chunks), its stylesheet.
    const files = new Set([file]);
    for (const imported of output.imports) if (imported.kind === 'import-statement') files.add(imported.path);
    if (output.cssBundle) files.add(output.cssBundle);
    let gz = zlib.gzipSync(page_html).length;
    for (const f of files) gz += zlib.gzipSync(fs.readFileSync(path.join(root, f))).length;
    overBudget ||= gz > FIRST_LOAD_BUDGET_BYTES;
    report.push({ page, gz });
  }
  if (!quiet || overBudget) {
    for (const { page, gz } of report.sort((a, b) => a.page.localeCompare(b.page))) {
      console.log(`web: ${page}.html first load ${(gz / 1024).toFixed(1)} kB gzipped (budget ${FIRST_LOAD_BUDGET_BYTES / 1024} kB)`);
    }
  }
  if (overBudget) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error('web: a page is over its first-load budget');
  }
  const retired = `${outDir}.retired-${process.pid}-${Date.now()}`;
  if (fs.existsSync(outDir)) fs.renameSync(outDir, retired);
  fs.renameSync(staging, outDir);
  fs.rmSync(retired, { recursive: true, force: true });
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildWeb().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
