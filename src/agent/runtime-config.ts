/** Where the codex binary is and what the agent runtime derives from configuration. */
import path from 'node:path';
import { createRequire } from 'node:module';
import type { EnvSettings } from '../config/env.js';

/** The native binary shipped by @openai/codex (spawning it directly skips the Node wrapper). */
export function defaultCodexBinary(): string {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('@openai/codex-linux-x64/package.json'));
  return path.join(packageDir, 'vendor/x86_64-unknown-linux-musl/bin/codex');
}

/** Folders the sandbox shows read-only for the codex binary: the @openai/codex package (tools it runs) and the binary's own. */
export function codexDirs(binary: string): string[] {
  const dirs = [path.dirname(path.resolve(binary))];
  try {
    const require = createRequire(import.meta.url);
    dirs.push(path.dirname(require.resolve('@openai/codex-linux-x64/package.json')));
  } catch {
    // A configured binary outside the package needs only its own folder.
  }
  return dirs;
}

/** What of the service an agent sandbox must never show, even inside a system folder it does show. */
export function hiddenServicePaths(env: EnvSettings): string[] {
  return [env.dataDir, env.configPath, env.staticTokenFile].filter((item): item is string => item !== undefined);
}
