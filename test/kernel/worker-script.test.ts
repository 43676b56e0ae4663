/**
 * A worker thread's script: the compiled file when it exists (dist/), else its TypeScript source bundled (the test
 * runner does not reach into worker threads), with its relative imports inside and its packages resolved from
 * the source's folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workerScript } from '../../src/kernel/worker-script.js';

function sourceDir(): string {
  // Inside the project, so `kysely` (a package) resolves from the source's folder as it would from src/.
  const dir = fs.mkdtempSync(path.join(process.cwd(), 'test', 'kernel', '.worker-script-'));
  fs.writeFileSync(path.join(dir, 'double.ts'), 'export const double = (value: number): number => value * 2;\n');
  fs.writeFileSync(
    path.join(dir, 'thread.ts'),
    "import { parentPort, workerData } from 'node:worker_threads';\nimport { sql } from 'kysely';\nimport { double } from './double.js';\nparentPort!.postMessage({ doubled: double(workerData as number), kysely: typeof sql });\n",
  );
  return dir;
}

const answerOf = (script: URL, data: unknown) =>
  new Promise<unknown>((resolve, reject) => {
    const worker = new Worker(script, { workerData: data });
    worker.once('message', (message) => void worker.terminate().then(() => resolve(message)));
    worker.once('error', reject);
  });

describe('workerScript', () => {
  it('bundles the TypeScript source when no compiled file exists, and runs it', async () => {
    const dir = sourceDir();
    try {
      const script = workerScript(pathToFileURL(path.join(dir, 'thread.js')));
      expect(script.pathname.startsWith(pathToFileURL(os.tmpdir()).pathname)).toBe(true);
      expect(await answerOf(script, 21)).toEqual({ doubled: 42, kysely: 'function' });
      // Once per process and content.
      expect(workerScript(pathToFileURL(path.join(dir, 'thread.js'))).href).toBe(script.href);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses the compiled file when it exists, and names both paths when neither does', () => {
    const dir = sourceDir();
    try {
      const compiled = pathToFileURL(path.join(dir, 'compiled.js'));
      fs.writeFileSync(compiled, '');
      expect(workerScript(compiled)).toBe(compiled);
      expect(() => workerScript(pathToFileURL(path.join(dir, 'missing.js')))).toThrow(
        /missing\.js not found, nor its source .*missing\.ts/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
