import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The crash test runs only through `npm run test:crash` (which sets SWITCHYARD_CRASH_TEST=1).
    exclude: process.env.SWITCHYARD_CRASH_TEST === '1' ? ['node_modules/**'] : ['test/billing/crash.test.ts', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
