import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The crash test runs only through `npm run test:crash` (which sets SWITCHYARD_CRASH_TEST=1).
const crashOnly = process.env.SWITCHYARD_CRASH_TEST === '1';
const excluded = crashOnly ? ['node_modules/**'] : ['test/billing/crash.test.ts', 'node_modules/**'];

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * Unit tests: files that import only from `src/` and packages, and start nothing (no test helper, fake, child
 * process or listening server). They run in milliseconds, so `npm run test:unit` checks a mapping edit at once.
 * Everything else is an integration test. The split is computed, so a new file lands in the right project.
 */
function isUnit(file: string): boolean {
  const text = fs.readFileSync(file, 'utf8');
  const relative = [...text.matchAll(/\bfrom\s+['"](\.[^'"]+)['"]/g)].map((match) => match[1]!);
  if (relative.some((specifier) => !path.resolve(path.dirname(file), specifier).startsWith(path.resolve('src') + path.sep))) return false;
  return !/child_process|\.listen\(|createServer|createTestContext|openTestStorage|launch/.test(text);
}

const all = testFiles('test').map((file) => file.split(path.sep).join('/'));
const unit = all.filter(isUnit);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    // A worker runs its test files one after another in one process and loads the service's modules once, not once
    // per file (that import was over half of the suite's time). Each file still builds its own services, storage
    // and data directory; a file that changes process-wide state (process.env) puts it back in its afterAll.
    isolate: false,
    maxWorkers: 2,
    // Every 2xx JSON answer of a route with a response schema is checked against it (src/http/contract).
    env: { SWITCHYARD_CONTRACT_CHECK: '1' },
    // Failed tests and retried passes are listed again at the end of the run (test/reporters/summary.ts).
    reporters: ['default', './test/reporters/summary.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: unit, exclude: excluded } },
      // An integration test gets one retry: these start real processes on a shared 2-core machine, where a
      // timing-sensitive test can lose a race with the other worker. A pass on the retry is still reported by
      // name at the end of the run, so it is followed up, not forgotten; a test that fails twice fails the run.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...excluded, ...unit], retry: 1 } },
    ],
  },
});
