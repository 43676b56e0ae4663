/**
 * Agent runtime: (1) latency from one app-server notification line (parsed by the JSON-RPC connection, routed
 * to its project, appended to the durable event log) to the SSE frame read by each of 100 subscribers, against
 * a baseline that appends the same event straight to the log; (2) turns per second through the full loop —
 * HTTP turn start → real app-server → our /v1/responses gateway → scripted upstream → notifications → event
 * log — against direct gateway /v1/responses calls with the same scripted reply, in the same run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { JsonRpcConnection } from '../src/appserver/connection.js';
import type { RunningService } from '../src/main.js';
import { startModelUpstream } from '../test/fakes/model-upstream.js';
import { round, startBenchService, type BenchReport } from './harness.js';
import { hrNowMs, workerClients } from './sse-clients.js';

const SUBSCRIBERS = 100;
const EVENTS = 200;
const EVENT_GAP_MS = 5;
const TURNS = 20;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function json(response: Response, expected: number): Promise<any> {
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export default async function agentBench(report: BenchReport): Promise<void> {
  report.section('Agent: notification → SSE latency, turns per second');
  const upstream = await startModelUpstream({ defaultReply: { kind: 'text', text: 'Scripted answer for the bench.' } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-agent-bench-'));
  const configFile = path.join(dataDir, 'config.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-bench' }],
      models: [{ id: 'scripted-coder', provider: 'scripted', upstreamModel: 'scripted-model', capabilities: { responsesApi: true } }],
      aliases: { 'power-ai': 'scripted-coder' },
      rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
    }),
  );
  let running: RunningService | null = null;
  const abort = new AbortController();
  try {
    running = await startBenchService(dataDir, { SWITCHYARD_CONFIG: configFile });
    const { services } = running;
    const base = running.url;
    const created = await services.customers.create({ email: 'agent-bench@example.test' });
    const token = created.systemToken.key;
    await services.billing.adjust({
      customerId: created.customer.id,
      amountMicros: 1_000_000_000,
      reason: 'agent bench',
      wallet: 'token',
      idempotencyKey: 'agent-bench',
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const project = await json(await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: '{}' }), 201);
    const opened = await json(await fetch(`${base}/api/v1/projects/${project.id}/open`, { method: 'POST', headers, body: '{}' }), 200);
    const threadId = opened.thread.id as string;

    // (1) latency at 100 subscribers, the clients in a worker thread (bench/sse-clients.ts)
    const clients = await workerClients({
      url: `${base}/api/v1/projects/${project.id}/events`,
      token,
      count: SUBSCRIBERS,
      types: ['bench/marker', 'bench/direct'],
    });
    let byType: Record<string, number[]> = {};
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const connection = new JsonRpcConnection(
        { send: async () => undefined },
        {
          onServerRequest: async () => ({}),
          onNotification: (notification) => services.agent.router.handleNotification(created.customer.id, notification),
          onProtocolError: () => undefined,
        },
        1_000,
      );
      for (const kind of ['line', 'direct'] as const) {
        for (let index = 0; index < EVENTS; index += 1) {
          const marker = `${kind}-${index}`;
          if (kind === 'line')
            connection.handleLine(JSON.stringify({ method: 'bench/marker', params: { threadId, marker, sentAt: hrNowMs() } }));
          else void services.projectEvents.append(project.id, 'bench/direct', { threadId, marker, sentAt: hrNowMs() });
          await new Promise((resolve) => setTimeout(resolve, EVENT_GAP_MS));
        }
      }
      byType = await clients.collect(2 * EVENTS);
    } finally {
      await clients.stop();
    }
    const viaBridge = (byType['bench/marker'] ?? []).sort((a, b) => a - b);
    const direct = (byType['bench/direct'] ?? []).sort((a, b) => a - b);
    report.line(
      `${SUBSCRIBERS} SSE subscribers on one project, ${EVENTS} events ${EVENT_GAP_MS} ms apart; the subscribers read in a worker thread of the same process (their parsing off the service's event loop).`,
    );
    report.table([
      {
        path: 'notification line → SSE frame',
        'p50 ms': round(percentile(viaBridge, 0.5), 2),
        'p99 ms': round(percentile(viaBridge, 0.99), 2),
        frames: viaBridge.length,
      },
      {
        path: 'baseline: event log append → SSE frame',
        'p50 ms': round(percentile(direct, 0.5), 2),
        'p99 ms': round(percentile(direct, 0.99), 2),
        frames: direct.length,
      },
    ]);
    report.line(`bridge / baseline p50: ${round(percentile(viaBridge, 0.5) / Math.max(percentile(direct, 0.5), 0.001), 2)}`);
    abort.abort();

    // (2) turns per second through the full loop, against direct gateway calls
    const turnEnded = new Map<string, () => void>();
    const unsubscribe = services.projectEvents.subscribe(project.id, (event) => {
      if (event.type !== 'turn/completed') return;
      const turnId = (JSON.parse(event.dataJson) as { turn: { id: string } }).turn.id;
      turnEnded.get(turnId)?.();
    });
    const runTurn = async (): Promise<void> => {
      const started = await json(
        await fetch(`${base}/api/v1/projects/${project.id}/turns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ input: 'bench turn' }),
        }),
        202,
      );
      await new Promise<void>((resolve) => turnEnded.set(started.turn_id, resolve));
    };
    await runTurn();
    const turnsStart = performance.now();
    for (let index = 0; index < TURNS; index += 1) await runTurn();
    const turnsPerSecond = TURNS / ((performance.now() - turnsStart) / 1000);
    unsubscribe();
    const callsStart = performance.now();
    for (let index = 0; index < TURNS; index += 1) {
      await (
        await fetch(`${base}/v1/responses`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: 'power-ai', input: 'bench call', stream: true, store: false }),
        })
      ).text();
    }
    const callsPerSecond = TURNS / ((performance.now() - callsStart) / 1000);
    report.table([
      { loop: 'agent turn (HTTP → app-server → gateway → upstream → events)', 'per second': round(turnsPerSecond, 2), count: TURNS },
      { loop: 'baseline: direct POST /v1/responses (stream)', 'per second': round(callsPerSecond, 2), count: TURNS },
    ]);
    report.line(
      `turn / direct call throughput: ${round(turnsPerSecond / callsPerSecond, 3)} (a turn re-sends the whole thread and Codex's ~21 kB instructions)`,
    );
  } finally {
    abort.abort();
    await running?.stop();
    await upstream.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
