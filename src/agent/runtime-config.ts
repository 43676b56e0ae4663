/** Where the codex binary is and what the agent runtime derives from configuration. */
import path from 'node:path';
import { createRequire } from 'node:module';

/** The native binary shipped by @openai/codex (spawning it directly skips the Node wrapper). */
export function defaultCodexBinary(): string {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('@openai/codex-linux-x64/package.json'));
  return path.join(packageDir, 'vendor/x86_64-unknown-linux-musl/bin/codex');
}
