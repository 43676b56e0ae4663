/**
 * `npm run bench`: runs every `dist/bench/*.bench.js` module's default export in file-name order with one
 * shared report, prints it and writes `.bench-out/latest.md`. A failing module is reported and the run goes on;
 * the exit code is non-zero when any failed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MarkdownReport, type BenchReport } from './harness.js';

type BenchModule = { default?: (report: BenchReport) => Promise<void> };

const benchDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(benchDir, '..', '..');

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = fs
    .readdirSync(benchDir)
    .filter((name) => name.endsWith('.bench.js'))
    .filter((name) => only.length === 0 || only.some((filter) => name.includes(filter)))
    .sort();
  const report = new MarkdownReport();
  report.line(`# Switchyard benchmarks`);
  report.line(
    `${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'} · ${os.platform()}`,
  );
  const failures: string[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(benchDir, file)).href)) as BenchModule;
    if (typeof module.default !== 'function') {
      failures.push(`${file}: no default export`);
      continue;
    }
    try {
      await module.default(report);
    } catch (error) {
      failures.push(`${file}: ${(error as Error).stack ?? error}`);
      report.line(`**${file} failed:** ${(error as Error).message}`);
    }
  }
  if (files.length === 0) report.line('No benchmark modules found; run `npm run build` first.');
  const file = report.write(path.join(root, '.bench-out'));
  process.stdout.write(`\nreport written to ${path.relative(process.cwd(), file) || file}\n`);
  if (failures.length > 0) {
    process.stderr.write(`${failures.join('\n')}\n`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
