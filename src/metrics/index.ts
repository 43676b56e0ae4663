/**
 * Service metrics in the Prometheus text format. Each service instance owns one `Registry` (so two services in
 * one process — tests — never share series); the composition root builds it, HTTP records requests through
 * `httpRequest`, the gateway through the narrow `GatewayMetrics` recorder, and gauges read live state at scrape
 * time through plain functions (`gauge`), so domain code never touches prom-client.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayMetrics, UpstreamCallProbe, UpstreamOutcome } from './recorder.js';

export type { GatewayMetrics, UpstreamCallProbe, UpstreamOutcome } from './recorder.js';

const PREFIX = 'switchyard_';
/** Seconds: from a 5 ms health check to a long streamed model answer. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** A gauge's value read at scrape time: one number, or one number per label value. */
export type GaugeReader = () => number | Promise<number>;

export interface ServiceMetrics extends GatewayMetrics {
  /** One finished HTTP request: `route` is the route template (`/v1/models/:model`), never the raw URL. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /**
   * A series read when scraped (a reader that throws reads 0). `counter` for a monotonic total some domain object
   * already keeps (exposed with the Prometheus counter type), `gauge` otherwise.
   */
  gauge(name: string, help: string, read: GaugeReader, type?: 'gauge' | 'counter'): void;
  /** A monotonic total some domain object keeps per value of one label, read when scraped (exposed as a counter). */
  labeledCounter(name: string, help: string, label: string, read: () => Record<string, number>): void;
  /** The exposition text of every series. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, handles); default true. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: PREFIX });

  const { httpRequests, httpDuration, upstreamCalls, upstreamDuration, firstToken, tokens, billed } = requestSeries(registry);
  const gaugeNames = new Set<string>();

  return {
    contentType: registry.contentType,
    httpRequest(method, route, status, seconds) {
      httpRequests.inc({ method, route, status: String(status) });
      httpDuration.observe({ method, route }, seconds);
    },
    upstreamCall: (provider, model) => upstreamCallProbe({ upstreamCalls, upstreamDuration, firstToken, tokens, billed }, provider, model),
    gauge(name, help, read, type = 'gauge') {
      if (gaugeNames.has(name)) throw new Error(`metric ${name} registered twice`);
      gaugeNames.add(name);
      readAtScrape(registry, { name, help, read, type });
    },
    labeledCounter(name, help, label, read) {
      if (gaugeNames.has(name)) throw new Error(`metric ${name} registered twice`);
      gaugeNames.add(name);
      new Counter({
        name: `${PREFIX}${name}`,
        help,
        labelNames: [label],
        registers: [registry],
        collect() {
          this.reset();
          for (const [value, total] of Object.entries(read())) this.inc({ [label]: value }, total);
        },
      });
    },
    render: () => registry.metrics(),
  };
}

/** The series recorded as requests and model calls happen. */
function requestSeries(registry: Registry) {
  const httpRequests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP request latency until the response ended (a stream counts until its last byte), by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const upstreamCalls = new Counter({
    name: `${PREFIX}upstream_calls_total`,
    help: 'Model calls sent to an upstream provider, by provider, model and outcome (completed, aborted, failed).',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: `${PREFIX}upstream_call_duration_seconds`,
    help: 'Model call latency from the upstream request to the end of its answer, by provider and model.',
    labelNames: ['provider', 'model'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const firstToken = new Histogram({
    name: `${PREFIX}upstream_time_to_first_token_seconds`,
    help: 'Time from the upstream request to its first streamed part, by provider and model.',
    labelNames: ['provider', 'model'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tokens = new Counter({
    name: `${PREFIX}billed_tokens_total`,
    help: 'Tokens settled on model calls, by model and direction (input, output).',
    labelNames: ['model', 'direction'] as const,
    registers: [registry],
  });
  const billed = new Counter({
    name: `${PREFIX}billed_micro_usd_total`,
    help: 'Micro-USD charged on settled model calls (0 for calls covered by an Unlimited plan), by model.',
    labelNames: ['model'] as const,
    registers: [registry],
  });
  return { httpRequests, httpDuration, upstreamCalls, upstreamDuration, firstToken, tokens, billed };
}

type RequestSeries = ReturnType<typeof requestSeries>;

/** One upstream call's probe: first part and end are recorded once each. */
function upstreamCallProbe(
  series: Pick<RequestSeries, 'upstreamCalls' | 'upstreamDuration' | 'firstToken' | 'tokens' | 'billed'>,
  provider: string,
  model: string,
): UpstreamCallProbe {
  const { upstreamCalls, upstreamDuration, firstToken, tokens, billed } = series;
  const startedAt = performance.now();
  let sawFirst = false;
  let ended = false;
  return {
    firstPart() {
      if (sawFirst) return;
      sawFirst = true;
      firstToken.observe({ provider, model }, (performance.now() - startedAt) / 1000);
    },
    end(outcome: UpstreamOutcome, usage) {
      if (ended) return;
      ended = true;
      upstreamCalls.inc({ provider, model, outcome });
      upstreamDuration.observe({ provider, model }, (performance.now() - startedAt) / 1000);
      if (usage) {
        tokens.inc({ model, direction: 'input' }, usage.inputTokens);
        tokens.inc({ model, direction: 'output' }, usage.outputTokens);
        billed.inc({ model }, usage.costMicros);
      }
    },
  };
}

/** A series whose value is read when scraped (a reader that throws reads 0). */
function readAtScrape(registry: Registry, series: { name: string; help: string; read: GaugeReader; type: 'gauge' | 'counter' }): void {
  const { name, help, read } = series;
  const value = async () => {
    try {
      return await read();
    } catch {
      return 0;
    }
  };
  if (series.type === 'counter') {
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      registers: [registry],
      async collect() {
        const total = await value();
        this.reset();
        if (total > 0) this.inc(total);
      },
    });
    return;
  }
  new Gauge({
    name: `${PREFIX}${name}`,
    help,
    registers: [registry],
    async collect() {
      this.set(await value());
    },
  });
}
