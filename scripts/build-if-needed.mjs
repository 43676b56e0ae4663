// Runs `tsc` when dist/ is missing or older than any source file, so `npm start` works on a fresh clone.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const marker = path.join(root, 'dist', 'src', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
const sources = Math.max(newestMtime(path.join(root, 'src')), fs.existsSync(path.join(root, 'bench')) ? newestMtime(path.join(root, 'bench')) : 0);
if (!fs.existsSync(path.join(root, 'src', 'appserver', 'generated', 'VERSION'))) {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'generate-appserver-types.mjs')], { stdio: 'inherit' });
}
if (built === 0 || sources > built) {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  fs.utimesSync(marker, new Date(), new Date());
}
