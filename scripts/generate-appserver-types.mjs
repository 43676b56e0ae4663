// Build step: generates the app-server protocol types for the exact codex binary the service runs
// (`codex app-server generate-ts --experimental`) into src/appserver/generated (git-ignored), then rewrites the
// generated relative imports to carry `.js` extensions, as ESM with NodeNext resolution requires.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const defaultBinary = path.join(root, 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex');
const binary = process.env.SWITCHYARD_CODEX_BINARY ?? defaultBinary;
const target = path.join(root, 'src/appserver/generated');

if (!fs.existsSync(binary)) {
  console.error(`generate-appserver-types: codex binary not found at ${binary}; set SWITCHYARD_CODEX_BINARY`);
  process.exit(1);
}

const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'appserver-types-'));
// The generator needs a writable CODEX_HOME; a throwaway one keeps its state files out of the output.
const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'appserver-home-'));
try {
  execFileSync(binary, ['app-server', 'generate-ts', '--experimental', '--out', staging], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CODEX_HOME: codexHome },
  });
  for (const file of listTypeScript(staging)) rewriteImports(file);
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(staging, target, { recursive: true });
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(path.join(target, 'VERSION'), `${version}\n`);
  console.log(`generate-appserver-types: ${version} → ${path.relative(root, target)}`);
} finally {
  fs.rmSync(staging, { recursive: true, force: true });
  fs.rmSync(codexHome, { recursive: true, force: true });
}

function listTypeScript(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTypeScript(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function rewriteImports(file) {
  const text = fs.readFileSync(file, 'utf8');
  const rewritten = text.replace(/from "(\.{1,2}\/[^"]+)"/g, (_match, specifier) => {
    const resolved = path.resolve(path.dirname(file), specifier);
    if (fs.existsSync(resolved) && fs.statSync(resolved).isDirectory()) return `from "${specifier}/index.js"`;
    return `from "${specifier}.js"`;
  });
  if (rewritten !== text) fs.writeFileSync(file, rewritten);
}
