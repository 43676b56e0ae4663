/**
 * Chassis throughput: the real service (SQLite in a temporary data dir) on a loopback port, loaded by
 * autocannon on a public route (`GET /api/v1/cli/version`) and an authenticated one (`GET /api/v1/me` with a
 * customer's System Token: bearer → keyed hash → key row → customer → wallet). Same connections and duration
 * for both, measured in the same run; the ratio is what authentication and the account read cost.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTest, round, startBenchService, type BenchReport } from './harness.js';

const CONNECTIONS = 10;
const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 2;

export default async function chassisBench(report: BenchReport): Promise<void> {
  report.section('Chassis: public vs authenticated route');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  const running = await startBenchService(dataDir);
  try {
    // The operator creates the customer (registration is by invite by default).
    const register = await fetch(`${running.url}/api/admin/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${running.services.config.env.staticToken}` },
      body: JSON.stringify({ email: 'bench@example.test', password: 'bench password 123' }),
    });
    if (register.status !== 201) throw new Error(`registration failed: ${register.status} ${await register.text()}`);
    const apiKey = ((await register.json()) as { api_key: string }).api_key;

    const common = { connections: CONNECTIONS, durationSeconds: DURATION_SECONDS, warmupSeconds: WARMUP_SECONDS };
    const publicRoute = await loadTest({ ...common, url: `${running.url}/api/v1/cli/version` });
    const authenticated = await loadTest({ ...common, url: `${running.url}/api/v1/me`, headers: { authorization: `Bearer ${apiKey}` } });
    for (const [name, result] of [
      ['public', publicRoute],
      ['authenticated', authenticated],
    ] as const) {
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${name} route: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }

    report.line(
      `SQLite, ${CONNECTIONS} connections, ${DURATION_SECONDS} s per route after a ${WARMUP_SECONDS} s warm-up, log level warn, one Node process.`,
    );
    report.table([
      {
        route: 'GET /api/v1/cli/version (public)',
        'requests/s': round(publicRoute.requestsPerSecond),
        'p50 ms': publicRoute.latencyP50Ms,
        'p99 ms': publicRoute.latencyP99Ms,
        requests: publicRoute.requests,
      },
      {
        route: 'GET /api/v1/me (System Token)',
        'requests/s': round(authenticated.requestsPerSecond),
        'p50 ms': authenticated.latencyP50Ms,
        'p99 ms': authenticated.latencyP99Ms,
        requests: authenticated.requests,
      },
    ]);
    report.line(`authenticated / public throughput: ${round(authenticated.requestsPerSecond / publicRoute.requestsPerSecond, 2)}`);
  } finally {
    await running.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
