/**
 * `npm run bench:billing-profile`: where billing's CPU goes. The gateway with billing off and on (the bench's minimal
 * config, as in gateway.bench) each runs under `--cpu-prof` while one client sends json chat completions one at a
 * time; the V8 profiles of the measured window (the main thread and the worker threads: the SQLite ledger thread, the log writer) are summed per part of
 * the program and divided by the calls made, next to the process's own CPU time per call from `/proc` (which also
 * counts the kernel's time: syscalls, thread wake-ups, WAL writes). Prints a table, billing on against off, largest
 * difference first. Run it on a quiet machine: a sampling profile charges a descheduled thread's time to its frame.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTest, round } from './harness.js';
import { startChild } from './gateway-processes.js';

const SECONDS = 10;
/** Concurrent connections of the load (`BENCH_PROFILE_CONNECTIONS`, default 1). */
const CONNECTIONS = Number(process.env.BENCH_PROFILE_CONNECTIONS ?? 1);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The part of the program a frame belongs to: a folder of src/, a package, or a kind of native work. */
function partOf(frame: ProfileNode['callFrame']): string {
  const url = frame.url;
  const source = /\/dist\/src\/([^/]+)\//.exec(url) ?? /\/dist\/src\/([^/]+)\.js$/.exec(url);
  if (source) return `src/${source[1]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node: (runtime JS)';
  if (url === '') return frame.functionName === '(idle)' ? '(idle)' : `native: ${frame.functionName || '(anonymous)'}`;
  return url;
}

/** Monotonic clock in microseconds: the clock of a V8 profile's timestamps (CLOCK_MONOTONIC on Linux). */
const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

/** Microseconds per call by part, over the samples taken between `from` and `to` (monotonic µs). */
function perCall(profile: Profile, calls: number, from: number, to: number): Map<string, number> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parts = new Map<string, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    at += profile.timeDeltas[index]!;
    if (at < from || at > to) continue;
    const part = partOf(nodes.get(profile.samples[index]!)!.callFrame);
    const spent = profile.timeDeltas[index + 1] ?? 0;
    parts.set(part, (parts.get(part) ?? 0) + spent / calls);
  }
  return parts;
}

async function profiled(billed: boolean, upstreamUrl: string) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `switchyard-profile-${billed ? 'on' : 'off'}-`));
  const gateway = await startChild(billed ? 'gateway-billed' : 'gateway', upstreamUrl, undefined, [
    '--cpu-prof',
    `--cpu-prof-dir=${directory}`,
  ]);
  const target = {
    url: `${gateway.info.url}/v1/chat/completions`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.info.key}` },
    body: JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 }),
    connections: CONNECTIONS,
  };
  await loadTest({ ...target, durationSeconds: 2 });
  const before = await gateway.cpuMicros();
  const from = monotonicMicros();
  const result = await loadTest({ ...target, durationSeconds: SECONDS });
  const to = monotonicMicros();
  const cpuPerCall = ((await gateway.cpuMicros()) - before) / result.requests;
  await gateway.stop();
  const parts = new Map<string, number>();
  // One profile per thread: the main thread's and the ledger thread's (billing on).
  for (const file of fs.readdirSync(directory)) {
    const profile = JSON.parse(fs.readFileSync(path.join(directory, file), 'utf8')) as Profile;
    // CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile: thread 0 is the main thread.
    const thread = file.split('.').at(-3) === '0' ? '' : `thread ${file.split('.').at(-3)}: `;
    for (const [part, micros] of perCall(profile, result.requests, from, to))
      parts.set(`${thread}${part}`, (parts.get(`${thread}${part}`) ?? 0) + micros);
  }
  fs.rmSync(directory, { recursive: true, force: true });
  return { result, cpuPerCall, parts };
}

async function main(): Promise<void> {
  const upstream = await startChild('upstream');
  try {
    const off = await profiled(false, upstream.info.url);
    const on = await profiled(true, upstream.info.url);
    const active = (parts: Map<string, number>) =>
      [...parts].filter(([part]) => !part.endsWith('(idle)')).reduce((sum, [, micros]) => sum + micros, 0);
    process.stdout.write(
      `json chat completion, c=${CONNECTIONS}, ${SECONDS} s each. Billing off: ${round(off.result.requestsPerSecond)} req/s, ${round(off.cpuPerCall)} µs CPU/call (/proc), ` +
        `${round(active(off.parts))} µs sampled/call. Billing on: ${round(on.result.requestsPerSecond)} req/s, ${round(on.cpuPerCall)} µs CPU/call (/proc), ` +
        `${round(active(on.parts))} µs sampled/call.\n\n| part | billing off µs/call | billing on µs/call | on − off |\n|---|---|---|---|\n`,
    );
    const names = new Set([...off.parts.keys(), ...on.parts.keys()]);
    const rows = [...names]
      .map((name) => ({ name, off: off.parts.get(name) ?? 0, on: on.parts.get(name) ?? 0 }))
      .sort((a, b) => b.on - b.off - (a.on - a.off));
    for (const row of rows.filter((entry) => Math.abs(entry.on - entry.off) >= 2 || entry.on >= 10))
      process.stdout.write(`| ${row.name} | ${round(row.off)} | ${round(row.on)} | ${round(row.on - row.off)} |\n`);
  } finally {
    await upstream.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
