/**
 * What tracing costs the gateway: CPU per call of the gateway with billing on, tracing off and tracing on
 * (exporting every span over OTLP/HTTP to a receiver that drops them), in one run, each measured twice in
 * alternation so a change in the machine's load shows as a spread instead of as a difference. Off is the
 * default: no span object is built; on, every call builds its request, model-call, hold, upstream and
 * settlement spans and exports them in batches.
 */
import { loadTest, round, type BenchReport } from './harness.js';
import { startChild, type ChildHandle } from './gateway-processes.js';

const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const CONNECTIONS = 16;
const ROUNDS = 2;

async function cpuPerCall(gateway: ChildHandle, stream: boolean): Promise<{ cpuMicros: number; requestsPerSecond: number }> {
  const options = {
    url: `${gateway.info.url}/v1/chat/completions`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.info.key}` },
    body: JSON.stringify({
      model: 'power-ai',
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 64,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
    connections: CONNECTIONS,
  };
  await loadTest({ ...options, durationSeconds: WARMUP_SECONDS });
  const before = await gateway.cpuMicros();
  const result = await loadTest({ ...options, durationSeconds: DURATION_SECONDS });
  const after = await gateway.cpuMicros();
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { cpuMicros: (after - before) / Math.max(1, result.requests), requestsPerSecond: result.requestsPerSecond };
}

export default async function tracingBench(report: BenchReport): Promise<void> {
  report.section('Tracing: gateway CPU per call with tracing off and on');
  const upstream = await startChild('upstream');
  const sink = await startChild('otlp-sink');
  const off = await startChild('gateway-billed', upstream.info.url);
  const on = await startChild('gateway-traced', upstream.info.url, sink.info.url);
  try {
    report.line(
      `POST /v1/chat/completions through the gateway with billing on (SQLite wallet), c=${CONNECTIONS}, ${DURATION_SECONDS} s per autocannon run after ${WARMUP_SECONDS} s warm-up, off and on alternated ${ROUNDS} times; tracing on exports every span (OTLP/HTTP JSON, batched) to a receiver in its own process. CPU µs per call of the gateway process.`,
    );
    const rows: Record<string, string | number>[] = [];
    for (const stream of [false, true]) {
      const measured = { off: [] as number[], on: [] as number[], offRate: [] as number[], onRate: [] as number[] };
      for (let index = 0; index < ROUNDS; index += 1) {
        const a = await cpuPerCall(off, stream);
        const b = await cpuPerCall(on, stream);
        measured.off.push(a.cpuMicros);
        measured.offRate.push(a.requestsPerSecond);
        measured.on.push(b.cpuMicros);
        measured.onRate.push(b.requestsPerSecond);
      }
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      const spread = (values: number[]) => `${round(Math.min(...values))}–${round(Math.max(...values))}`;
      rows.push({
        mode: stream ? 'stream' : 'json',
        'off CPU µs/call': round(mean(measured.off)),
        'off runs': spread(measured.off),
        'on CPU µs/call': round(mean(measured.on)),
        'on runs': spread(measured.on),
        'added µs/call': round(mean(measured.on) - mean(measured.off)),
        'on / off': round(mean(measured.on) / mean(measured.off), 3),
        'req/s off / on': `${round(mean(measured.offRate))} / ${round(mean(measured.onRate))}`,
      });
    }
    report.table(rows);
  } finally {
    await on.stop();
    await off.stop();
    await sink.stop();
    await upstream.stop();
  }
}
