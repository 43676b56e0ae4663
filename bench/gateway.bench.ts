/**
 * Gateway overhead: the scripted upstream measured directly and through the gateway in one run, at concurrency
 * 1 and 16, non-streaming and streaming (`POST /v1/chat/completions`). autocannon gives requests/s; a small
 * sequential client gives sub-millisecond latency percentiles and, for streams, the time to the first body byte.
 * The upstream, the gateway and the load generator each run in their own process. Two forwarders that do nothing
 * but forward are measured in the same run: a bare one (`node:http` + undici) is the ceiling any Node.js gateway can
 * reach on the machine, and one on Fastify (the service's framework, no hooks) separates the framework's cost from
 * the gateway's own work (authentication, validation, translation, metering).
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { loadTest, round, type BenchReport, type LoadTestResult } from './harness.js';
import { startChild } from './gateway-processes.js';

const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const LATENCY_SAMPLES = 400;

interface Target {
  url: string;
  headers: Record<string, string>;
  model: string;
}

function body(target: Target, stream: boolean): string {
  return JSON.stringify({ model: target.model, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
}

/** Sequential requests on one keep-alive connection: full-response latency and time to the first body byte. */
async function sequentialTimings(target: Target, stream: boolean): Promise<{ totalMs: number[]; firstByteMs: number[] }> {
  const origin = new URL(target.url);
  const pool = new Pool(origin.origin, { connections: 1 });
  const totalMs: number[] = [];
  const firstByteMs: number[] = [];
  const payload = body(target, stream);
  try {
    for (let index = 0; index < LATENCY_SAMPLES + 50; index += 1) {
      const startedAt = performance.now();
      const response = await pool.request({ method: 'POST', path: `${origin.pathname}/chat/completions`, headers: { 'content-type': 'application/json', ...target.headers }, body: payload });
      let firstAt: number | undefined;
      for await (const _chunk of response.body) firstAt ??= performance.now();
      const endedAt = performance.now();
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      if (index < 50) continue; // warm-up
      totalMs.push(endedAt - startedAt);
      firstByteMs.push((firstAt ?? endedAt) - startedAt);
    }
  } finally {
    await pool.close();
  }
  return { totalMs, firstByteMs };
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

async function throughput(target: Target, stream: boolean, connections: number): Promise<LoadTestResult> {
  const result = await loadTest({
    url: `${target.url}/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: body(target, stream),
    connections,
    durationSeconds: DURATION_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

export default async function gatewayBench(report: BenchReport): Promise<void> {
  report.section('Gateway: direct upstream vs through the gateway');
  const upstream = await startChild('upstream');
  const gateway = await startChild('gateway', upstream.info.url);
  const bareProxy = await startChild('bare-proxy', upstream.info.url);
  const fastifyProxy = await startChild('fastify-proxy', upstream.info.url);
  try {
    const direct: Target = { url: `${upstream.info.url}/v1`, headers: {}, model: 'scripted-model' };
    const through: Target = { url: `${gateway.info.url}/v1`, headers: { authorization: `Bearer ${gateway.info.key}` }, model: 'power-ai' };
    const bare: Target = { url: `${bareProxy.info.url}/v1`, headers: {}, model: 'scripted-model' };
    const onFastify: Target = { url: `${fastifyProxy.info.url}/v1`, headers: {}, model: 'scripted-model' };
    report.line(
      `POST /v1/chat/completions, scripted upstream on loopback (5 text chunks when streaming), billing off, ${DURATION_SECONDS} s per autocannon run after ${WARMUP_SECONDS} s warm-up; latency from ${LATENCY_SAMPLES} sequential requests on one keep-alive connection. Upstream, gateway and load generator in separate processes on ${'a 2-core machine'}.`,
    );
    const rows: Record<string, string | number>[] = [];
    const summary: string[] = [];
    for (const stream of [false, true]) {
      for (const connections of [1, 16]) {
        const directResult = await throughput(direct, stream, connections);
        const gatewayResult = await throughput(through, stream, connections);
        const bareResult = await throughput(bare, stream, connections);
        const fastifyResult = await throughput(onFastify, stream, connections);
        rows.push({
          mode: stream ? 'stream' : 'json',
          concurrency: connections,
          'direct req/s': round(directResult.requestsPerSecond),
          'gateway req/s': round(gatewayResult.requestsPerSecond),
          'gateway / direct': round(gatewayResult.requestsPerSecond / directResult.requestsPerSecond, 3),
          'bare proxy req/s': round(bareResult.requestsPerSecond),
          'bare proxy / direct': round(bareResult.requestsPerSecond / directResult.requestsPerSecond, 3),
          'Fastify proxy / direct': round(fastifyResult.requestsPerSecond / directResult.requestsPerSecond, 3),
          'direct p50/p99 ms': `${directResult.latencyP50Ms}/${directResult.latencyP99Ms}`,
          'gateway p50/p99 ms': `${gatewayResult.latencyP50Ms}/${gatewayResult.latencyP99Ms}`,
        });
        if (connections === 16) {
          const ratio = (result: LoadTestResult) => round(result.requestsPerSecond / directResult.requestsPerSecond, 3);
          summary.push(`${stream ? 'stream' : 'json'} c=16 gateway/direct req/s: ${ratio(gatewayResult)} (target ≥ 0.5; forwarders that do nothing else: bare ${ratio(bareResult)}, Fastify ${ratio(fastifyResult)})`);
        }
      }
    }
    report.table(rows);
    const latencyRows: Record<string, string | number>[] = [];
    for (const stream of [false, true]) {
      const directTimes = await sequentialTimings(direct, stream);
      const gatewayTimes = await sequentialTimings(through, stream);
      const added = (values: { totalMs: number[]; firstByteMs: number[] }, base: { totalMs: number[]; firstByteMs: number[] }, key: 'totalMs' | 'firstByteMs', fraction: number) =>
        round(percentile(values[key], fraction) - percentile(base[key], fraction), 3);
      latencyRows.push({
        mode: stream ? 'stream' : 'json',
        'direct p50 ms': round(percentile(directTimes.totalMs, 0.5), 3),
        'gateway p50 ms': round(percentile(gatewayTimes.totalMs, 0.5), 3),
        'added p50 ms': added(gatewayTimes, directTimes, 'totalMs', 0.5),
        'added p99 ms': added(gatewayTimes, directTimes, 'totalMs', 0.99),
        ...(stream ? { 'added TTFB p50 ms': added(gatewayTimes, directTimes, 'firstByteMs', 0.5), 'added TTFB p99 ms': added(gatewayTimes, directTimes, 'firstByteMs', 0.99) } : {}),
      });
      if (!stream) summary.push(`json c=1 added p50: ${added(gatewayTimes, directTimes, 'totalMs', 0.5)} ms (target ≤ 0.5)`);
    }
    report.line('Concurrency 1, sequential client:');
    report.table(latencyRows);
    for (const line of summary) report.line(line);
  } finally {
    await gateway.stop();
    await bareProxy.stop();
    await fastifyProxy.stop();
    await upstream.stop();
  }
}
