/**
 * Project event log: (1) latency from `append()` (durable write, then fan-out) to the SSE frame parsed by each
 * client, with 100 subscribers against a baseline of 1 subscriber in the same run; (2) appends per second,
 * one awaited append at a time (one commit each) against bursts of concurrent appends (group commit), with
 * no subscriber and with 100. The latency clients run in a worker thread of the same process (bench/sse-clients.ts),
 * so their parsing does not sit on the service's event loop; the append clients run on it. SSE is a long-lived
 * stream, so the clients are plain HTTP readers rather than autocannon requests.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import type { RunningService } from '../src/main.js';
import { round, startBenchService, type BenchReport } from './harness.js';
import { hrNowMs, workerClients } from './sse-clients.js';

const SUBSCRIBERS = 100;
const LATENCY_EVENTS = 300;
const EVENT_GAP_MS = 5;
const SEQUENTIAL_APPENDS = 300;
const BURST_APPENDS = 5_000;
const BURST_SIZE = 250;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

interface Subscriber {
  latenciesMs: number[];
  close(): void;
}

/** An SSE client recording, per frame, the time since the event's `sentAt` (same process, same clock). */
function subscribe(url: string, token: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const latenciesMs: number[] = [];
    const request = http.get(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`events: ${response.statusCode}`));
      const parser = createParser({
        onEvent: (event) => {
          if (event.event === 'bench') latenciesMs.push(performance.now() - (JSON.parse(event.data) as { sentAt: number }).sentAt);
        },
      });
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => parser.feed(chunk));
      resolve({ latenciesMs, close: () => request.destroy() });
    });
    request.on('error', reject);
  });
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the SSE clients');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function measureLatency(
  running: RunningService,
  token: string,
  customerId: number,
  subscriberCount: number,
  events = LATENCY_EVENTS,
) {
  const project = await running.services.projects.create(customerId, `latency-${subscriberCount}`);
  const url = `${running.url}/api/v1/projects/${project.id}/events`;
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const clients = await workerClients({ url, token, count: subscriberCount, types: ['bench'] });
  let all: number[] = [];
  let rssPeak = process.memoryUsage().rss;
  const overflowsBefore = running.services.projectEvents.stats().overflowDisconnects;
  try {
    await waitUntil(() => running.services.projectEvents.stats().subscribers >= subscriberCount, 30_000);
    for (let index = 0; index < events; index += 1) {
      await running.services.projectEvents.append(project.id, 'bench', { index, sentAt: hrNowMs() });
      await new Promise((resolve) => setTimeout(resolve, EVENT_GAP_MS));
      if (index % 20 === 0) rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    all = ((await clients.collect(events)).bench ?? []).sort((a, b) => a - b);
  } finally {
    await clients.stop();
  }
  return {
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    frames: all.length,
    dropped: subscriberCount * events - all.length,
    overflows: running.services.projectEvents.stats().overflowDisconnects - overflowsBefore,
    rssAddedMb: (rssPeak - rssBefore) / 1024 / 1024,
  };
}

async function measureAppends(running: RunningService, token: string, customerId: number, subscriberCount: number) {
  const { projects, projectEvents } = running.services;
  const sequentialProject = await projects.create(customerId, 'sequential');
  const burstProject = await projects.create(customerId, 'burst');
  const subscribers = await Promise.all(
    Array.from({ length: subscriberCount }, () => subscribe(`${running.url}/api/v1/projects/${burstProject.id}/events`, token)),
  );
  await waitUntil(() => projectEvents.stats().subscribers >= subscriberCount, 10_000);
  try {
    let started = performance.now();
    for (let index = 0; index < SEQUENTIAL_APPENDS; index += 1) await projectEvents.append(sequentialProject.id, 'item/delta', { index });
    const sequentialPerSecond = SEQUENTIAL_APPENDS / ((performance.now() - started) / 1000);

    const commitsBefore = projectEvents.stats().commits;
    started = performance.now();
    for (let start = 0; start < BURST_APPENDS; start += BURST_SIZE) {
      await Promise.all(
        Array.from({ length: BURST_SIZE }, (_, index) =>
          projectEvents.append(burstProject.id, 'item/delta', { index: start + index, delta: 'token ' }),
        ),
      );
    }
    const burstPerSecond = BURST_APPENDS / ((performance.now() - started) / 1000);
    const commits = projectEvents.stats().commits - commitsBefore;
    return { sequentialPerSecond, burstPerSecond, commits, overflows: projectEvents.stats().overflowDisconnects };
  } finally {
    subscribers.forEach((subscriber) => subscriber.close());
  }
}

export default async function eventsBench(report: BenchReport): Promise<void> {
  report.section('Project events: append → SSE frame latency, appends per second');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-events-'));
  const running = await startBenchService(dataDir);
  try {
    const customer = await running.services.customers.create({ email: 'events-bench@example.test' });
    const token = customer.systemToken.key;
    const customerId = customer.customer.id;

    const baseline = await measureLatency(running, token, customerId, 1);
    const fanout = await measureLatency(running, token, customerId, SUBSCRIBERS);
    report.line(
      `SQLite (WAL; event commits do not wait for an fsync), ${LATENCY_EVENTS} events ${EVENT_GAP_MS} ms apart; latency = append() call → frame parsed by the client; the clients run in a worker thread of the same process (their parsing off the service's event loop).`,
    );
    report.table([
      { subscribers: 1, 'p50 ms': round(baseline.p50, 2), 'p99 ms': round(baseline.p99, 2), frames: baseline.frames },
      { subscribers: SUBSCRIBERS, 'p50 ms': round(fanout.p50, 2), 'p99 ms': round(fanout.p99, 2), frames: fanout.frames },
    ]);
    report.line(
      `p50 at ${SUBSCRIBERS} subscribers / p50 at 1: ${round(fanout.p50 / baseline.p50, 2)}; p99 ratio: ${round(fanout.p99 / baseline.p99, 2)}`,
    );
    const thousand = await measureLatency(running, token, customerId, 1_000, 100);
    report.line(
      `**1,000 subscribers on one project** (100 events ${EVENT_GAP_MS} ms apart): p50 ${round(thousand.p50, 2)} ms, p99 ${round(thousand.p99, 2)} ms, ${thousand.frames} frames, ${thousand.dropped} missing, ${thousand.overflows} slow-client disconnects; **added RSS ${round(thousand.rssAddedMb, 1)} MB** (target < 200 MB; the process also holds the 1,000 clients, so the service's own share is lower).`,
    );

    const quiet = await measureAppends(running, token, customerId, 0);
    const watched = await measureAppends(running, token, customerId, SUBSCRIBERS);
    report.table([
      {
        subscribers: 0,
        'awaited one by one (appends/s)': round(quiet.sequentialPerSecond),
        [`bursts of ${BURST_SIZE} (appends/s)`]: round(quiet.burstPerSecond),
        'commits for the bursts': quiet.commits,
      },
      {
        subscribers: SUBSCRIBERS,
        'awaited one by one (appends/s)': round(watched.sequentialPerSecond),
        [`bursts of ${BURST_SIZE} (appends/s)`]: round(watched.burstPerSecond),
        'commits for the bursts': watched.commits,
      },
    ]);
    report.line(
      `group commit: ${BURST_APPENDS} burst appends took ${quiet.commits} transactions; burst / one-by-one throughput: ${round(quiet.burstPerSecond / quiet.sequentialPerSecond, 1)}; slow-client disconnects during the run: ${watched.overflows}`,
    );
  } finally {
    await running.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
