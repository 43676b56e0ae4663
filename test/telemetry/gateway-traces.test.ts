/**
 * Traces of model calls through the real gateway, read from the SDK's in-memory exporter: the HTTP request span
 * continues the client's `traceparent`, the model call is its child (GenAI attributes), the hold, the upstream
 * exchange and the settlement are the call's children, the upstream is sent the exchange's `traceparent`, and no
 * prompt, completion or key appears in any span unless the deployment opted in. Also: one request id in the answer,
 * the span and the call's record, the client's own id beside it, and abandoned streams counted and logged.
 */
import OpenAI from 'openai';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installTracing, type TracingHandle } from '../../src/telemetry/index.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import type { TestContext } from '../helpers/context.js';
import { billingContext, MODEL, newCustomer, type TestCustomer } from '../billing/helpers.js';

const PROMPT = 'the secret plan is tangerine-42';
const COMPLETION = 'Completion words that stay private.';
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let exporter: InMemorySpanExporter;
let tracing: TracingHandle;
let upstream: ModelUpstream;
let context: TestContext;
let url: string;
let buyer: TestCustomer;

async function install(recordContent: boolean): Promise<void> {
  await tracing?.shutdown();
  exporter = new InMemorySpanExporter();
  tracing = await installTracing({
    exporter,
    serviceName: 'switchyard-test',
    serviceVersion: '0',
    instanceId: 'node-a',
    recordContent,
    immediate: true,
  });
}

beforeAll(async () => {
  await install(false);
  upstream = await startModelUpstream();
  context = await billingContext({ upstreamUrl: upstream.url });
  url = await context.listen();
  buyer = await newCustomer(context, 50_000_000);
});
afterAll(async () => {
  await context.close();
  await upstream.close();
  await tracing.shutdown();
});
beforeEach(() => exporter.reset());

function client(headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ apiKey: buyer.systemToken, baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: headers });
}

/** The spans once the model call's span (which ends after the settlement) has ended. */
async function spansOfCall(): Promise<ReadableSpan[]> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const spans = exporter.getFinishedSpans();
    if (spans.some((span) => span.attributes['gen_ai.operation.name'] === 'chat') && spans.some((span) => span.kind === 1)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(
    `the model call's spans never ended: ${exporter
      .getFinishedSpans()
      .map((span) => span.name)
      .join(', ')}`,
  );
}

const byName = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

function everyText(spans: ReadableSpan[]): string {
  return JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
}

describe('model-call traces', () => {
  it('a billed call: request span under the client trace, the call with its hold, upstream and settlement', async () => {
    const { data, response } = await client({ traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, 'x-request-id': 'client-7' })
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: PROMPT }] }, {})
      .withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^req_/);
    expect(response.headers.get('x-client-request-id')).toBe('client-7');

    const spans = await spansOfCall();
    const http = byName(spans, 'POST /v1/chat/completions')!;
    expect(http.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentOf(http)).toBe(CLIENT_SPAN);
    expect(http.attributes).toMatchObject({
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'switchyard.request_id': requestId,
      'switchyard.client_request_id': 'client-7',
    });
    const call = byName(spans, `chat ${MODEL}`)!;
    expect(parentOf(call)).toBe(http.spanContext().spanId);
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': 'scripted-model',
      'gen_ai.provider.name': 'openai',
      'gen_ai.usage.input_tokens': data.usage!.prompt_tokens,
      'gen_ai.usage.output_tokens': data.usage!.completion_tokens,
      'gen_ai.response.finish_reasons': ['stop'],
      'switchyard.request_id': requestId,
      'switchyard.outcome': 'completed',
    });
    for (const name of ['switchyard.hold', 'switchyard.upstream', 'switchyard.settle'])
      expect(parentOf(byName(spans, name)!), name).toBe(call.spanContext().spanId);
    const upstreamSpan = byName(spans, 'switchyard.upstream')!;
    expect(upstreamSpan.events.map((event) => event.name)).toContain('gen_ai.first_token');
    expect(upstreamSpan.attributes['switchyard.time_to_first_token_ms']).toBeTypeOf('number');
    const settle = byName(spans, 'switchyard.settle')!;
    const [row] = await context.storage.db
      .selectFrom('billing_calls')
      .select(['request_id', 'cost_micros'])
      .where('request_id', '=', requestId)
      .execute();
    expect(row).toBeDefined();
    expect(settle.attributes['switchyard.cost_micros']).toBe(Number(row!.cost_micros));
    // The upstream was asked with the exchange's own traceparent.
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers.traceparent).toBe(`00-${CLIENT_TRACE}-${upstreamSpan.spanContext().spanId}-01`);
    // Neither the prompt, the completion, the caller's key nor the upstream key is in any span.
    const text = everyText(spans);
    for (const secret of [PROMPT, data.choices[0]!.message.content!, buyer.systemToken, 'sk-', 'authorization'])
      expect(text).not.toContain(secret);
  });

  it('a stream that fails midway: the call and its upstream exchange end as errors', async () => {
    upstream.enqueue({ kind: 'drop_mid_stream', text: COMPLETION, afterChunks: 2 });
    const stream = await client().chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: PROMPT }] });
    await expect(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    ).rejects.toThrow();
    const spans = await spansOfCall();
    const call = byName(spans, `chat ${MODEL}`)!;
    expect(call.attributes).toMatchObject({ 'switchyard.outcome': 'failed', 'switchyard.stream': true });
    expect(call.status.code).toBe(2);
    const exchange = byName(spans, 'switchyard.upstream')!;
    expect(exchange.status.code).toBe(2);
    expect(exchange.attributes['switchyard.outcome']).toBe('failed');
    expect(byName(spans, 'switchyard.settle')).toBeDefined();
    expect(everyText(spans)).not.toContain(PROMPT);
  });

  it('a refused call (no credit) ends at its hold, as an error', async () => {
    const broke = await newCustomer(context, 0);
    const refused = new OpenAI({ apiKey: broke.systemToken, baseURL: `${url}/v1`, maxRetries: 0 });
    await expect(refused.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: PROMPT }] })).rejects.toThrow(
      /credit/i,
    );
    const spans = await spansOfCall();
    const call = byName(spans, `chat ${MODEL}`)!;
    expect(call.attributes['switchyard.outcome']).toBe('refused');
    expect(byName(spans, 'switchyard.hold')!.status.code).toBe(2);
    expect(byName(spans, 'switchyard.upstream')).toBeUndefined();
    expect(byName(spans, 'POST /v1/chat/completions')!.attributes['http.response.status_code']).toBe(402);
  });

  it('records prompt and completion only when the deployment opted in', async () => {
    await install(true);
    try {
      upstream.enqueue({ kind: 'text', text: COMPLETION });
      await client().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: PROMPT }] });
      const call = byName(await spansOfCall(), `chat ${MODEL}`)!;
      expect(String(call.attributes['gen_ai.input.messages'])).toContain(PROMPT);
      expect(String(call.attributes['gen_ai.output.messages'])).toContain(COMPLETION);
      expect(everyText([call])).not.toContain(buyer.systemToken);
    } finally {
      await install(false);
    }
  });
});

function abandonedCount(metrics: string): number {
  const match = /switchyard_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status="499"\} (\d+)/.exec(metrics);
  return match ? Number(match[1]) : 0;
}

describe('abandoned requests', () => {
  it('a stream the client abandons is counted (499) and logged with its request id', async () => {
    const before = abandonedCount(await context.services.serviceMetrics.render());
    upstream.enqueue({ kind: 'text', text: COMPLETION.repeat(4), chunks: 20, chunkDelayMs: 100 });
    const controller = new AbortController();
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${buyer.systemToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    });
    const requestId = response.headers.get('x-request-id')!;
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const deadline = Date.now() + 5_000;
    while (
      !context.logs.some((line) => line.includes('request aborted by the client') && line.includes(requestId)) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const line = JSON.parse(context.logs.find((entry) => entry.includes('request aborted by the client') && entry.includes(requestId))!);
    expect(line).toMatchObject({ requestId, aborted: true, status: 499, sentStatus: 200, route: '/v1/chat/completions' });
    const metrics = await context.services.serviceMetrics.render();
    expect(abandonedCount(metrics)).toBe(before + 1);
    const spans = await spansOfCall();
    const http = byName(spans, 'POST /v1/chat/completions')!;
    expect(http.attributes).toMatchObject({ 'switchyard.client_aborted': true, 'http.response.status_code': 499 });
    expect(byName(spans, `chat ${MODEL}`)!.attributes['switchyard.outcome']).toBe('aborted');
  });
});
