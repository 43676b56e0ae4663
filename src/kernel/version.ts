/** The service's own version, read once from the nearest package.json (the same file whether run from src or dist). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function packageVersion(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(directory, 'package.json');
    if (fs.existsSync(file)) return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version ?? '0.0.0');
    const parent = path.dirname(directory);
    if (parent === directory) return '0.0.0';
    directory = parent;
  }
}

export const SERVICE_VERSION = packageVersion();
