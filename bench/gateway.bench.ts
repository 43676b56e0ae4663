/**
 * Gateway overhead: the scripted upstream measured directly and through the gateway (billing off and on) in one
 * run, at concurrency 1 and 16, non-streaming and streaming (`POST /v1/chat/completions`); the headline is the
 * gateway with billing against the bare forwarder. autocannon gives requests/s; a small
 * sequential client gives sub-millisecond latency percentiles and, for streams, the time to the first body byte.
 * The upstream, the gateway and the load generator each run in their own process. Two forwarders that do nothing
 * but forward are measured in the same run: a bare one (`node:http` + undici) is the ceiling any Node.js gateway can
 * reach on the machine, and one on Fastify (the service's framework, no hooks) separates the framework's cost from
 * the gateway's own work (authentication, validation, translation, metering). Next to the bench's minimal config,
 * what operators run: the shipped example config started as `npm start` starts it, at the default log level and at
 * `warn`, so the log level and the example config's features each show their share.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { loadTest, round, type BenchReport, type LoadTestResult } from './harness.js';
import { startChild, type ChildHandle } from './gateway-processes.js';

const DURATION_SECONDS = 5;
const WARMUP_SECONDS = 1;
const LATENCY_SAMPLES = 400;

interface Target {
  url: string;
  headers: Record<string, string>;
  model: string;
}

function body(target: Target, stream: boolean): string {
  return JSON.stringify({
    model: target.model,
    messages: [{ role: 'user', content: 'Say hello.' }],
    max_tokens: 64,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });
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
      const response = await pool.request({
        method: 'POST',
        path: `${origin.pathname}/chat/completions`,
        headers: { 'content-type': 'application/json', ...target.headers },
        body: payload,
      });
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

interface Measured extends LoadTestResult {
  /** CPU time of the process that answers (the forwarder or gateway; the upstream itself for direct) per call. */
  cpuMicrosPerCall: number;
  /** CPU time of the scripted upstream per call. */
  upstreamCpuMicrosPerCall: number;
}

async function throughput(
  target: Target,
  stream: boolean,
  connections: number,
  process: ChildHandle,
  upstream: ChildHandle,
): Promise<Measured> {
  const options = {
    url: `${target.url}/chat/completions`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...target.headers },
    body: body(target, stream),
    connections,
  };
  await loadTest({ ...options, durationSeconds: WARMUP_SECONDS });
  const [cpuBefore, upstreamBefore] = [await process.cpuMicros(), await upstream.cpuMicros()];
  const result = await loadTest({ ...options, durationSeconds: DURATION_SECONDS });
  const [cpuAfter, upstreamAfter] = [await process.cpuMicros(), await upstream.cpuMicros()];
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const calls = Math.max(1, result.requests);
  return {
    ...result,
    cpuMicrosPerCall: (cpuAfter - cpuBefore) / calls,
    upstreamCpuMicrosPerCall: (upstreamAfter - upstreamBefore) / calls,
  };
}

export default async function gatewayBench(report: BenchReport): Promise<void> {
  report.section('Gateway: direct upstream, bare forwarder, Fastify forwarder, gateway with billing off and on');
  const upstream = await startChild('upstream');
  const gateway = await startChild('gateway', upstream.info.url);
  const billed = await startChild('gateway-billed', upstream.info.url);
  const bareProxy = await startChild('bare-proxy', upstream.info.url);
  const fastifyProxy = await startChild('fastify-proxy', upstream.info.url);
  const unreserved = await startChild('gateway-billed-unreserved', upstream.info.url);
  const example = await startChild('example', upstream.info.url);
  const exampleWarn = await startChild('example-warn', upstream.info.url);
  try {
    const targets: { name: string; target: Target; process: ChildHandle }[] = [
      { name: 'direct', target: { url: `${upstream.info.url}/v1`, headers: {}, model: 'scripted-model' }, process: upstream },
      { name: 'bare forwarder', target: { url: `${bareProxy.info.url}/v1`, headers: {}, model: 'scripted-model' }, process: bareProxy },
      {
        name: 'Fastify forwarder',
        target: { url: `${fastifyProxy.info.url}/v1`, headers: {}, model: 'scripted-model' },
        process: fastifyProxy,
      },
      {
        name: 'gateway, billing off',
        target: { url: `${gateway.info.url}/v1`, headers: { authorization: `Bearer ${gateway.info.key}` }, model: 'power-ai' },
        process: gateway,
      },
      {
        name: 'gateway, billing on',
        target: { url: `${billed.info.url}/v1`, headers: { authorization: `Bearer ${billed.info.key}` }, model: 'power-ai' },
        process: billed,
      },
      {
        name: 'billing on, reservations off',
        target: { url: `${unreserved.info.url}/v1`, headers: { authorization: `Bearer ${unreserved.info.key}` }, model: 'power-ai' },
        process: unreserved,
      },
      {
        name: 'example config, npm start (info)',
        target: { url: `${example.info.url}/v1`, headers: { authorization: `Bearer ${example.info.key}` }, model: 'power-ai' },
        process: example,
      },
      {
        name: 'example config, warn',
        target: { url: `${exampleWarn.info.url}/v1`, headers: { authorization: `Bearer ${exampleWarn.info.key}` }, model: 'power-ai' },
        process: exampleWarn,
      },
    ];
    report.line(
      `POST /v1/chat/completions, scripted upstream on loopback (5 text chunks when streaming), ${DURATION_SECONDS} s per autocannon run after ${WARMUP_SECONDS} s warm-up; latency from ${LATENCY_SAMPLES} sequential requests on one keep-alive connection. Upstream, each forwarder or gateway, and the load generator in separate processes; billing on = SQLite wallet, hold before the upstream call, settlement journaled and committed after the answer (the bench's minimal config at log level warn). billing on: a busy wallet's calls draw their holds from credit the process reserved once (credit reservations; each call's row is written with its grouped settlement); 'billing on, reservations off': the same with \`billing.reservations.maxMicros\` 0 (each call commits a hold of its own, started early when the wallet's last committed hold showed enough spare credit; the answer waits for the commit). The example config rows: \`node dist/src/cli.js serve\` (what \`npm start\` runs) with config/switchyard.example.json as shipped (billing on), only its providers pointed at the scripted upstream, at the default log level (info: a line per request) and at warn, standard output read from a pipe. CPU µs per call: the answering process (for direct, the upstream itself), and the upstream.`,
    );
    const rows: Record<string, string | number>[] = [];
    const summary: string[] = [];
    for (const stream of [false, true]) {
      for (const connections of [1, 16]) {
        const results = new Map<string, Measured>();
        for (const { name, target, process } of targets)
          results.set(name, await throughput(target, stream, connections, process, upstream));
        const direct = results.get('direct')!;
        const bare = results.get('bare forwarder')!;
        for (const [name, result] of results) {
          rows.push({
            mode: stream ? 'stream' : 'json',
            c: connections,
            target: name,
            'req/s': round(result.requestsPerSecond),
            '/ direct': round(result.requestsPerSecond / direct.requestsPerSecond, 3),
            '/ bare forwarder': round(result.requestsPerSecond / bare.requestsPerSecond, 3),
            'p50/p99 ms': `${result.latencyP50Ms}/${result.latencyP99Ms}`,
            'CPU µs/call': round(result.cpuMicrosPerCall),
            'upstream CPU µs/call': round(result.upstreamCpuMicrosPerCall),
          });
        }
        if (connections === 1) {
          const on = results.get('gateway, billing on')!.cpuMicrosPerCall;
          const off = results.get('gateway, billing off')!.cpuMicrosPerCall;
          summary.push(
            `**${stream ? 'stream' : 'json'} c=1 gateway CPU per call, billing on / off: ${round(on)} / ${round(off)} µs = ${round(on / off, 2)}×** (target ≤ 1.5×); reservations off ${round(results.get('billing on, reservations off')!.cpuMicrosPerCall)} µs; example config ${round(results.get('example config, npm start (info)')!.cpuMicrosPerCall)} µs at info, ${round(results.get('example config, warn')!.cpuMicrosPerCall)} µs at warn`,
          );
        }
        if (connections === 16) {
          const on = results.get('gateway, billing on')!;
          const off = results.get('gateway, billing off')!;
          const shipped = results.get('example config, npm start (info)')!;
          const shippedWarn = results.get('example config, warn')!;
          summary.push(
            `${stream ? 'stream' : 'json'} c=16 / bare forwarder req/s, example config: ${round(shipped.requestsPerSecond / bare.requestsPerSecond, 3)} at info, ${round(shippedWarn.requestsPerSecond / bare.requestsPerSecond, 3)} at warn`,
          );
          summary.push(
            `**${stream ? 'stream' : 'json'} c=16 gateway with billing / bare forwarder req/s: ${round(on.requestsPerSecond / bare.requestsPerSecond, 3)}** (target ≥ ${stream ? '0.75' : '0.6'}); billing off ${round(off.requestsPerSecond / bare.requestsPerSecond, 3)}, Fastify forwarder ${round(results.get('Fastify forwarder')!.requestsPerSecond / bare.requestsPerSecond, 3)}; bare forwarder / direct ${round(bare.requestsPerSecond / direct.requestsPerSecond, 3)}`,
          );
        }
      }
    }
    report.table(rows);
    const latencyRows: Record<string, string | number>[] = [];
    for (const stream of [false, true]) {
      const timings = new Map<string, { totalMs: number[]; firstByteMs: number[] }>();
      for (const { name, target } of targets) if (name !== 'Fastify forwarder') timings.set(name, await sequentialTimings(target, stream));
      const base = timings.get('direct')!;
      const added = (values: { totalMs: number[]; firstByteMs: number[] }, key: 'totalMs' | 'firstByteMs', fraction: number) =>
        round(percentile(values[key], fraction) - percentile(base[key], fraction), 3);
      for (const [name, values] of timings) {
        latencyRows.push({
          mode: stream ? 'stream' : 'json',
          target: name,
          'p50 ms': round(percentile(values.totalMs, 0.5), 3),
          'added p50 ms': added(values, 'totalMs', 0.5),
          'added p99 ms': added(values, 'totalMs', 0.99),
          ...(stream ? { 'added TTFB p50 ms': added(values, 'firstByteMs', 0.5) } : {}),
        });
      }
      if (!stream) {
        const shipped = added(timings.get('example config, npm start (info)')!, 'totalMs', 0.5);
        const shippedWarn = added(timings.get('example config, warn')!, 'totalMs', 0.5);
        summary.push(
          `json c=1 added p50 over direct, example config: ${shipped} ms at info (log level: ${round(shipped - shippedWarn, 3)} ms), ${shippedWarn} ms at warn (the example config's features against the minimal config: ${round(shippedWarn - added(timings.get('gateway, billing on')!, 'totalMs', 0.5), 3)} ms)`,
        );
        summary.push(
          `**json c=1 added p50 over direct, gateway with billing: ${added(timings.get('gateway, billing on')!, 'totalMs', 0.5)} ms** (target ≤ 0.35); billing off ${added(timings.get('gateway, billing off')!, 'totalMs', 0.5)} ms, bare forwarder ${added(timings.get('bare forwarder')!, 'totalMs', 0.5)} ms`,
        );
      }
    }
    report.line('Concurrency 1, sequential client:');
    report.table(latencyRows);
    for (const line of summary) report.line(line);
  } finally {
    await gateway.stop();
    await billed.stop();
    await bareProxy.stop();
    await fastifyProxy.stop();
    await unreserved.stop();
    await example.stop();
    await exampleWarn.stop();
    await upstream.stop();
  }
}
