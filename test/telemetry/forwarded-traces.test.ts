/**
 * A request forwarded between two nodes (`serve` processes on one PostgreSQL database and one Redis) is one
 * trace: each node exports to an in-process OTLP/HTTP receiver, the receiving node's request span continues the
 * client's `traceparent`, the lease holder's span is its child, and both carry the same request id (and the
 * client's own id beside it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { newCustomer } from '../billing/helpers.js';
import { startTwoNodes, type TwoNodes } from '../scale/harness.js';

interface ReceivedSpan {
  node: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (value: OtlpValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map((entry) => [entry.key, valueOf(entry.value)]));

/** An OTLP/HTTP (JSON) trace receiver: what a collector would be handed. */
async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const payload = JSON.parse(body) as { resourceSpans: any[] };
        for (const resourceSpans of payload.resourceSpans) {
          const node = String(attributesOf(resourceSpans.resource.attributes)['service.instance.id']);
          for (const scope of resourceSpans.scopeSpans)
            for (const span of scope.spans)
              spans.push({
                node,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: attributesOf(span.attributes),
              });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!TEST_DATABASE_URL)('a request forwarded between nodes', () => {
  let cluster: TwoNodes;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    cluster = await startTwoNodes({ config: { tracing: { endpoint: receiver.url } } });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  it('is one trace: the holder’s request span is the child of the forwarding node’s, with one request id', async () => {
    const customer = await newCustomer(cluster.admin, 10_000_000);
    const headers = { ...bearer(customer.systemToken), 'content-type': 'application/json' };
    const started = await fetch(`${cluster.a.url}/api/threads`, { method: 'POST', headers, body: JSON.stringify({ cwd: 'direct' }) });
    expect(started.status, await started.clone().text()).toBe(201);
    const threadId = ((await started.json()) as { thread: { id: string } }).thread.id;
    const read = await fetch(`${cluster.b.url}/api/threads/${threadId}`, {
      headers: { ...headers, traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, 'x-request-id': 'client-forwarded-1' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('x-switchyard-served-by')).toBe('node-a');
    const requestId = read.headers.get('x-request-id')!;
    expect(read.headers.get('x-client-request-id')).toBe('client-forwarded-1');

    // Each node exports its batch within its schedule delay.
    const route = 'GET /api/threads/:thread_id';
    await expect
      .poll(() => receiver.spans.filter((span) => span.traceId === CLIENT_TRACE && span.name === route).length, { timeout: 20_000 })
      .toBe(2);
    const first = receiver.spans.find((span) => span.traceId === CLIENT_TRACE && span.node === 'node-b')!;
    const holder = receiver.spans.find((span) => span.traceId === CLIENT_TRACE && span.node === 'node-a')!;
    expect(first.parentSpanId).toBe(CLIENT_SPAN);
    expect(holder.parentSpanId).toBe(first.spanId);
    expect(first.attributes).toMatchObject({
      'switchyard.request_id': requestId,
      'switchyard.client_request_id': 'client-forwarded-1',
      'switchyard.served_by': 'node-a',
      'http.response.status_code': 200,
    });
    expect(holder.attributes).toMatchObject({ 'switchyard.request_id': requestId, 'switchyard.client_request_id': 'client-forwarded-1' });
    expect(JSON.stringify(receiver.spans)).not.toContain(customer.systemToken);
  }, 60_000);
});
