/**
 * The benchmark harness: every `bench/*.bench.ts` module default-exports `async function (report: BenchReport)`.
 * The report collects sections, lines and tables, prints them as they come and is written to
 * `.bench-out/latest.md` at the end of a run. `loadTest` wraps autocannon, the one load generator.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config/load-config.js';
import { startService, type RunningService } from '../src/main.js';

export interface BenchReport {
  section(title: string): void;
  line(text: string): void;
  table(rows: Record<string, string | number>[]): void;
}

/** A report that prints to stdout and keeps a Markdown copy. */
export class MarkdownReport implements BenchReport {
  private readonly parts: string[] = [];

  constructor(private readonly print: (text: string) => void = (text) => process.stdout.write(`${text}\n`)) {}

  section(title: string): void {
    this.emit(`\n## ${title}\n`);
  }

  line(text: string): void {
    this.emit(text);
  }

  table(rows: Record<string, string | number>[]): void {
    if (rows.length === 0) return;
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const cell = (value: string | number | undefined) => (value === undefined ? '' : String(value).replace(/\|/g, '\\|'));
    const lines = [
      `| ${columns.join(' | ')} |`,
      `| ${columns.map(() => '---').join(' | ')} |`,
      ...rows.map((row) => `| ${columns.map((column) => cell(row[column])).join(' | ')} |`),
    ];
    this.emit(`${lines.join('\n')}\n`);
  }

  markdown(): string {
    return `${this.parts.join('\n')}\n`;
  }

  /** Writes the collected report to `<directory>/latest.md` and returns the file path. */
  write(directory: string): string {
    fs.mkdirSync(directory, { recursive: true });
    const file = path.join(directory, 'latest.md');
    fs.writeFileSync(file, this.markdown());
    return file;
  }

  private emit(text: string): void {
    this.parts.push(text);
    this.print(text);
  }
}

export interface LoadTestOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  /** A shorter run first whose figures are thrown away (JIT, connection pools, caches). */
  warmupSeconds?: number;
}

export interface LoadTestResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function runOnce(options: LoadTestOptions, durationSeconds: number): Promise<LoadTestResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 10,
    duration: durationSeconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function loadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  if ((options.warmupSeconds ?? 0) > 0) await runOnce(options, options.warmupSeconds!);
  return runOnce(options, options.durationSeconds ?? 5);
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * The real service on a loopback port with its data in `dataDir`: the process environment without settings that
 * would point it at a shared database or port, a quiet log, a static operator token (so the first start writes
 * and logs no token file), then `extra`.
 */
export function startBenchService(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<RunningService> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(SWITCHYARD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(name)) env[name] = value;
  }
  return startService(
    loadConfig({
      ...env,
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_LOG_LEVEL: 'warn',
      SWITCHYARD_STATIC_TOKEN: randomBytes(24).toString('base64url'),
      HOST: '127.0.0.1',
      ...extra,
    }),
    { port: 0 },
  );
}
