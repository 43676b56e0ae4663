/**
 * Billing overhead: gateway throughput (`POST /v1/chat/completions`, non-streaming, the scripted upstream on
 * loopback) with billing on (policy checks, guarded hold and settlement in the ledger, group-committed) and
 * with billing off (the free meter), in the same run, same connections, SQLite with synchronous=FULL.
 * Each mode runs twice, interleaved, so drift of the machine does not favour one of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunningService } from '../src/main.js';
import { startModelUpstream, type ModelUpstream } from '../test/fakes/model-upstream.js';
import { loadTest, round, startBenchService, type BenchReport, type LoadTestResult } from './harness.js';

const CONNECTIONS = 16;
const DURATION_SECONDS = 6;
const WARMUP_SECONDS = 2;
const OPERATOR_TOKEN = 'bench-operator-token-0123456789-abcdef';

function configFile(upstream: ModelUpstream, billingEnabled: boolean) {
  return {
    providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1` }],
    models: [{ id: 'bench-model', provider: 'scripted', upstreamModel: 'scripted-model', rateCard: 'standard' }],
    aliases: { 'power-ai': 'bench-model' },
    rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
    billing: { enabled: billingEnabled },
  };
}

async function fundedService(
  upstream: ModelUpstream,
  billingEnabled: boolean,
): Promise<{ running: RunningService; apiKey: string; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-billing-'));
  const configPath = path.join(dataDir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify(configFile(upstream, billingEnabled)));
  const running = await startBenchService(dataDir, { SWITCHYARD_CONFIG: configPath, SWITCHYARD_STATIC_TOKEN: OPERATOR_TOKEN });
  const created = await running.services.customers.create({ email: `bench-${billingEnabled ? 'on' : 'off'}@example.test` });
  const credit = await fetch(`${running.url}/api/admin/customers/${created.customer.id}/wallet/adjust`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR_TOKEN}`, 'idempotency-key': 'bench-funding' },
    body: JSON.stringify({ amount_micros: 1_000_000_000_000, reason: 'benchmark funding' }),
  });
  if (credit.status !== 200) throw new Error(`funding failed: ${credit.status} ${await credit.text()}`);
  return { running, apiKey: created.systemToken.key, dataDir };
}

async function measure(upstream: ModelUpstream, billingEnabled: boolean): Promise<LoadTestResult & { settled: number }> {
  const { running, apiKey, dataDir } = await fundedService(upstream, billingEnabled);
  try {
    const result = await loadTest({
      url: `${running.url}/v1/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model: 'power-ai', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 }),
      connections: CONNECTIONS,
      durationSeconds: DURATION_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`billing ${billingEnabled ? 'on' : 'off'}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    const settled = await running.services.storage.db.selectFrom('billing_calls').select('id').where('status', '=', 'settled').execute();
    const check = await running.services.billing.checkLedger();
    if (check.mismatchedAccounts.length + check.unbalancedTransfers.length + check.badHolds.length > 0)
      throw new Error('ledger invariants broken after the run');
    return { ...result, settled: settled.length };
  } finally {
    await running.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export default async function billingBench(report: BenchReport): Promise<void> {
  report.section('Billing: gateway requests/s with billing on vs off');
  const upstream = await startModelUpstream();
  try {
    const runs: { mode: string; result: LoadTestResult & { settled: number } }[] = [];
    for (const enabled of [false, true, false, true]) runs.push({ mode: enabled ? 'on' : 'off', result: await measure(upstream, enabled) });
    const mean = (mode: string) => {
      const selected = runs.filter((run) => run.mode === mode);
      return selected.reduce((sum, run) => sum + run.result.requestsPerSecond, 0) / selected.length;
    };
    report.line(
      `POST /v1/chat/completions (non-streaming, scripted upstream on loopback), ${CONNECTIONS} connections, ${DURATION_SECONDS} s per run after ${WARMUP_SECONDS} s warm-up, SQLite WAL synchronous=FULL, holds and settlements group-committed in the ledger worker thread; modes interleaved off/on/off/on.`,
    );
    report.table(
      runs.map((run, index) => ({
        run: index + 1,
        billing: run.mode,
        'requests/s': round(run.result.requestsPerSecond),
        'p50 ms': run.result.latencyP50Ms,
        'p99 ms': run.result.latencyP99Ms,
        requests: run.result.requests,
        'settled calls': run.result.settled,
      })),
    );
    report.line(`billing on / billing off throughput: ${round(mean('on') / mean('off'), 3)} (target ≥ 0.8)`);
  } finally {
    await upstream.close();
  }
}
