// Builds when dist/ is missing or older than any source file, so `npm start` and `npm run bench` work on a
// fresh clone. The app-server protocol types are generated first when they are missing (they are git-ignored
// and come from the codex binary the service runs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const marker = path.join(root, 'dist', 'src', 'cli.js');
const generatedTypes = path.join(root, 'src', 'appserver', 'generated');
const generator = path.join(root, 'scripts', 'generate-appserver-types.mjs');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function run(script, args) {
  execFileSync(process.execPath, [script, ...args], { stdio: 'inherit', cwd: root });
}

if (!fs.existsSync(generatedTypes) && fs.existsSync(generator)) run(generator, []);

const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
const sourceDirs = ['src', 'bench'].map((dir) => path.join(root, dir)).filter((dir) => fs.existsSync(dir));
const sources = Math.max(...sourceDirs.map(newestMtime), fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs);
if (built === 0 || sources > built) {
  run(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', path.join(root, 'tsconfig.json')]);
  fs.utimesSync(marker, new Date(), new Date());
}

// The web front end (dist/web): rebuilt when missing or older than web/.
const { buildWeb, newestWebSource, WEB_OUT_DIR } = await import('./build-web.mjs');
const webMarker = path.join(WEB_OUT_DIR, 'dashboard.html');
if (!fs.existsSync(webMarker) || newestWebSource() > fs.statSync(webMarker).mtimeMs) await buildWeb();
