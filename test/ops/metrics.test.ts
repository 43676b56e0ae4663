/** `/metrics`: operator-only Prometheus text whose series move with real requests and billed model calls. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer } from '../../src/metrics/server.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { billingContext, chat, credit, MODEL, newCustomer, expectLedgerConsistent } from '../billing/helpers.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';

/** The value of one series (`name{labels}`) in exposition text, or undefined when absent. */
function seriesValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found[pair[1]!] = pair[2]!;
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(context: TestContext): Promise<string> {
  const response = await context.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

let upstream: ModelUpstream;
let context: TestContext;
let url: string;

beforeAll(async () => {
  upstream = await startModelUpstream();
  context = await billingContext({ upstreamUrl: upstream.url });
  url = await context.listen();
});
afterAll(async () => {
  await context?.close();
  await upstream?.close();
});

describe('GET /metrics', () => {
  it('needs an operator bearer', async () => {
    const anonymous = await context.app.inject({ method: 'GET', url: '/metrics' });
    expect(anonymous.statusCode).toBe(401);
    const customer = await newCustomer(context);
    const asCustomer = await context.app.inject({ method: 'GET', url: '/metrics', headers: bearer(customer.systemToken) });
    expect(asCustomer.statusCode).toBe(404);
  });

  it('moves the request, upstream, token and billing series with a billed call', async () => {
    const before = await scrape(context);
    const routeLabels = { method: 'POST', route: '/v1/chat/completions', status: '200' };
    const requestsBefore = seriesValue(before, 'switchyard_http_requests_total', routeLabels) ?? 0;
    const callLabels = { provider: 'scripted', model: MODEL, outcome: 'completed' };
    expect(seriesValue(before, 'switchyard_upstream_calls_total', callLabels) ?? 0).toBe(0);

    const customer = await newCustomer(context);
    await credit(context, customer.customerId, 5_000_000);
    upstream.enqueue({ kind: 'text', text: 'one two three', usage: { inputTokens: 1_000, outputTokens: 500 } });
    const response = await chat(url, customer.systemToken, {
      model: 'power-ai',
      messages: [{ role: 'user', content: 'Count.' }],
      max_tokens: 600,
      stream: true,
    });
    expect(response.status).toBe(200);
    await response.text();
    // Settlement runs as the stream ends; the response's last byte may reach the client first.
    await expect
      .poll(async () => seriesValue(await scrape(context), 'switchyard_upstream_calls_total', callLabels), { timeout: 10_000 })
      .toBe(1);

    const after = await scrape(context);
    expect(seriesValue(after, 'switchyard_http_requests_total', routeLabels)).toBe(requestsBefore + 1);
    expect(
      seriesValue(after, 'switchyard_http_request_duration_seconds_count', { method: 'POST', route: '/v1/chat/completions' }),
    ).toBeGreaterThanOrEqual(1);
    expect(seriesValue(after, 'switchyard_upstream_time_to_first_token_seconds_count', { provider: 'scripted', model: MODEL })).toBe(1);
    expect(seriesValue(after, 'switchyard_upstream_call_duration_seconds_count', { provider: 'scripted', model: MODEL })).toBe(1);
    expect(seriesValue(after, 'switchyard_billed_tokens_total', { model: MODEL, direction: 'input' })).toBe(1_000);
    expect(seriesValue(after, 'switchyard_billed_tokens_total', { model: MODEL, direction: 'output' })).toBe(500);
    // Standard card: 4 USD per million input tokens, 24 per million output: 4,000 + 12,000 micro-USD.
    expect(seriesValue(after, 'switchyard_billed_micro_usd_total', { model: MODEL })).toBe(16_000);
    expect(seriesValue(after, 'switchyard_holds_open')).toBe(0);
    expect(seriesValue(after, 'switchyard_ledger_queue_depth')).toBe(0);
    expect(seriesValue(after, 'switchyard_database_up')).toBe(1);
    for (const gauge of [
      'switchyard_appservers_running',
      'switchyard_appservers_starting',
      'switchyard_agent_turns_running',
      'switchyard_sse_subscribers',
      'switchyard_sse_overflow_disconnects_total',
    ]) {
      expect(seriesValue(after, gauge), gauge).toBe(0);
    }
    expect(seriesValue(after, 'switchyard_process_resident_memory_bytes')).toBeGreaterThan(0);
    await expectLedgerConsistent(context);
  });

  it('labels requests by route template, never by the raw URL', async () => {
    await context.app.inject({ method: 'GET', url: '/v1/models/some-secret-looking-id', headers: operatorHeaders });
    await context.app.inject({ method: 'GET', url: '/no/such/path/abc123' });
    const text = await scrape(context);
    expect(text).not.toContain('some-secret-looking-id');
    expect(text).not.toContain('abc123');
    expect(
      seriesValue(text, 'switchyard_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('keeps the series of two services in one process apart', async () => {
    const other = await billingContext({ upstreamUrl: upstream.url });
    try {
      const text = (await other.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders })).body;
      expect(
        seriesValue(text, 'switchyard_upstream_calls_total', { provider: 'scripted', model: MODEL, outcome: 'completed' }),
      ).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('infrastructure health', () => {
  it('reports Redis when configured and the PostgreSQL pool when the database is PostgreSQL', async () => {
    const withoutRedis = await scrape(context);
    expect(seriesValue(withoutRedis, 'switchyard_redis_up')).toBeUndefined();
    const withRedis = await billingContext({ upstreamUrl: upstream.url, env: { REDIS_URL: 'redis://127.0.0.1:6379' } });
    try {
      const text = (await withRedis.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders })).body;
      expect(seriesValue(text, 'switchyard_redis_up')).toBe(1);
      if (withRedis.storage.dialect === 'postgres') {
        expect(seriesValue(text, 'switchyard_db_pool_connections')).toBeGreaterThanOrEqual(1);
        expect(seriesValue(text, 'switchyard_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0);
        expect(seriesValue(text, 'switchyard_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
      } else {
        expect(seriesValue(text, 'switchyard_db_pool_connections')).toBeUndefined();
      }
    } finally {
      await withRedis.close();
    }
  });
});

describe('metrics.listen', () => {
  it('serves /metrics on its own address without a bearer, and not on the main port', async () => {
    const separate = await billingContext({ upstreamUrl: upstream.url, config: { metrics: { listen: '127.0.0.1:0' } } });
    const server = await startMetricsServer(separate.services.serviceMetrics, separate.config.metrics.listen!);
    try {
      const onMain = await separate.app.inject({ method: 'GET', url: '/metrics', headers: operatorHeaders });
      expect(onMain.statusCode).toBe(404);
      await separate.app.inject({ method: 'GET', url: '/healthz' });
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(seriesValue(text, 'switchyard_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(1);
      expect((await fetch(`${server.url}/other`)).status).toBe(404);
    } finally {
      await server.close();
      await separate.close();
    }
  });
});
