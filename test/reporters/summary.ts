/**
 * The run's verdicts in a few lines at its end: every failed test and every test that passed only on its retry
 * (integration tests get one retry, see vitest.config.ts), each with its first error whole. A retried pass is a
 * finding, not a pass to forget: it names a test, or a part of the service, that depends on timing.
 * With SWITCHYARD_TEST_SUMMARY set, the lines are also appended to that file (`.ci/run` prints it last, so the
 * end of CI's output names what failed on either dialect).
 */
import fs from 'node:fs';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

interface ErrorLike {
  message?: string;
  cause?: unknown;
}

/**
 * The first error whole (a property test's seed and counterexample are in it) with the causes it names (a property
 * test's failed assertion is its cause), indented, at most 4,000 characters.
 */
function whole(errors: ReadonlyArray<ErrorLike> | undefined): string {
  const parts: string[] = [];
  for (let error: unknown = errors?.[0], depth = 0; error && depth < 3; depth += 1) {
    const message = (error as ErrorLike).message;
    if (message) parts.push(depth === 0 ? message : `Caused by: ${message}`);
    error = (error as ErrorLike).cause;
  }
  const message = parts.join('\n').slice(0, 4_000);
  return message
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

export default class SummaryReporter implements Reporter {
  private readonly lines: string[] = [];

  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    const where = `${test.module.relativeModuleId} > ${test.fullName}`;
    if (result.state === 'failed') this.lines.push(`FAILED ${where}`, whole(result.errors));
    else if (result.state === 'passed' && test.diagnostic()?.flaky) {
      // The default reporter prints nothing of a retried pass: its first attempt's error is only here.
      this.lines.push(`PASSED ONLY ON RETRY ${where}`, whole(result.errors));
    }
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<ErrorLike>): void {
    for (const module of modules) {
      // A file that failed outside its tests (import, beforeAll, afterAll) has no failed test to name it.
      const errors = module.errors();
      if (errors.length > 0) this.lines.push(`FAILED ${module.relativeModuleId} (outside its tests)`, whole(errors));
    }
    for (const error of unhandledErrors) this.lines.push('UNHANDLED ERROR', whole([error]));
    const dialect = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
    const verdict = this.lines.length === 0 ? 'no failure, no retried pass' : 'what failed, and what passed only on its retry';
    const text = [`== test verdicts (${dialect}): ${verdict}`, ...this.lines].join('\n') + '\n';
    process.stdout.write(text);
    const file = process.env.SWITCHYARD_TEST_SUMMARY;
    if (file) fs.appendFileSync(file, text);
  }
}
