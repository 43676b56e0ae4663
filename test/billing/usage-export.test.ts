/**
 * The operator's usage export and the usage webhook, through the real gateway and a real HTTP receiver: pages
 * that together hold every settled call once (JSON lines and CSV), turns grouped per thread and turn, the client's
 * own request id recorded beside the service's, and webhook deliveries signed like the payment webhooks,
 * retried after the receiver failed and still owed after a restart.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageWebhook } from '../../src/billing/usage-webhook.js';
import { verifySignature } from '../../src/billing/payments/webhook-signature.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { operatorHeaders, type TestContext } from '../helpers/context.js';
import { billingContext, MODEL, newCustomer, type TestCustomer } from './helpers.js';

const SECRET = 'usage-webhook-secret-0123456789';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: ModelUpstream;
let context: TestContext;
let url: string;
let clock: FakeClock;
let buyer: TestCustomer;
let other: TestCustomer;
let receiver: http.Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];
/** The receiver answers 500 while this is above 0 (and counts down). */
let failuresLeft = 0;
const requestIds: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        response.writeHead(500).end('down');
      } else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/usage`;
  upstream = await startModelUpstream();
  clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  context = await billingContext({
    upstreamUrl: upstream.url,
    clock,
    config: { usageWebhook: { url: receiverUrl, secret: SECRET, pollMs: 86_400_000, firstBackoffMs: 1_000, maxBackoffMs: 4_000 } },
  });
  url = await context.listen();
  buyer = await newCustomer(context, 50_000_000);
  other = await newCustomer(context, 50_000_000);
  for (const [index, customer] of [buyer, buyer, other, buyer, other].entries()) {
    const client = new OpenAI({
      apiKey: customer.systemToken,
      baseURL: `${url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-request-id': `client-call-${index}` },
    });
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: `call ${index}` }] })
      .withResponse();
    requestIds.push(response.headers.get('x-request-id')!);
    clock.advance(1_000);
  }
  await settledCount(5);
});
afterAll(async () => {
  await context.close();
  await upstream.close();
  await new Promise((resolve) => receiver.close(resolve));
});

async function settledCount(count: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const rows = await context.storage.db.selectFrom('billing_calls').select('id').where('status', '=', 'settled').execute();
    if (rows.length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('calls did not settle');
}

function exportPage(query: string) {
  return context.app.inject({ method: 'GET', url: `/api/admin/usage/export?${query}`, headers: operatorHeaders });
}

const FROM = new Date(Date.UTC(2026, 5, 1)).toISOString();
const TO = new Date(Date.UTC(2026, 5, 2)).toISOString();

describe('usage export', () => {
  it('pages through every settled call once, in settlement order, with both request ids', async () => {
    const seen: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await exportPage(`from=${FROM}&to=${TO}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/x-ndjson');
      const lines = response.body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.length).toBeLessThanOrEqual(2);
      seen.push(...lines);
      cursor = response.headers['x-next-cursor'] as string | undefined;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen.map((record) => record.request_id)).toEqual(requestIds);
    expect(seen.map((record) => record.client_request_id)).toEqual([0, 1, 2, 3, 4].map((index) => `client-call-${index}`));
    expect(seen[2]).toMatchObject({ customer_id: other.customerId, model: MODEL, outcome: 'completed', surface: 'gateway' });
    expect(seen.every((record) => (record.cost_micros as number) > 0 && (record.input_tokens as number) > 0)).toBe(true);
    // What the customer's activity view shows for a call carries the same ids.
    const activity = await context.app.inject({
      method: 'GET',
      url: '/api/v1/billing/token-usage',
      headers: { authorization: `Bearer ${buyer.systemToken}` },
    });
    expect(activity.json().transactions[0]).toMatchObject({ request_id: requestIds[3], client_request_id: 'client-call-3' });
  });

  it("filters one customer's calls and the period, as CSV", async () => {
    const response = await exportPage(`format=csv&customer_id=${other.customerId}&from=${FROM}&to=${TO}`);
    expect(response.headers['content-type']).toContain('text/csv');
    const [header, ...rows] = response.body.trimEnd().split('\r\n');
    expect(header!.split(',').slice(0, 4)).toEqual(['call_id', 'request_id', 'client_request_id', 'customer_id']);
    expect(rows.map((row) => row.split(',')[1])).toEqual([requestIds[2], requestIds[4]]);
    const before = await exportPage(`from=${FROM}&to=${new Date(Date.UTC(2026, 5, 1, 12, 0, 2)).toISOString()}`);
    expect(before.body.trim().split('\n')).toHaveLength(2);
  });

  it('groups the model calls of agent turns per thread and turn, paged', async () => {
    const calls = await context.storage.db
      .selectFrom('billing_calls')
      .select('id')
      .where('customer_id', '=', buyer.customerId)
      .orderBy('id')
      .execute();
    // The three calls of the buyer as an agent's model requests: two in one turn, one in another.
    const turns = [
      ['thread-a', 'turn-1'],
      ['thread-a', 'turn-1'],
      ['thread-a', 'turn-2'],
    ];
    for (const [index, [threadId, turnId]] of turns.entries())
      await context.storage.db
        .updateTable('billing_calls')
        .set({ thread_id: threadId, turn_id: turnId })
        .where('id', '=', calls[index]!.id)
        .execute();
    const first = await exportPage(`kind=turns&from=${FROM}&to=${TO}&limit=1`);
    const [turn1] = first.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(turn1).toMatchObject({ customer_id: buyer.customerId, thread_id: 'thread-a', turn_id: 'turn-1', model_calls: 2 });
    const second = await exportPage(`kind=turns&from=${FROM}&to=${TO}&limit=1&cursor=${first.headers['x-next-cursor']}`);
    expect(JSON.parse(second.body)).toMatchObject({ thread_id: 'thread-a', turn_id: 'turn-2', model_calls: 1 });
    expect(second.headers['x-next-cursor']).toBeUndefined();
  });

  it('refuses a bad period or cursor with a 422 and is for operators only', async () => {
    expect((await exportPage(`from=${TO}&to=${FROM}`)).statusCode).toBe(422);
    expect((await exportPage('from=yesterday')).statusCode).toBe(422);
    const bad = await exportPage(`from=${FROM}&to=${TO}&cursor=not-a-cursor`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['query', 'cursor']);
    const customer = await context.app.inject({
      method: 'GET',
      url: '/api/admin/usage/export',
      headers: { authorization: `Bearer ${buyer.systemToken}` },
    });
    expect(customer.statusCode).toBe(404);
  });
});

describe('usage webhook', () => {
  it('delivers every settled call signed, retries after the receiver failed, and owes the rest across a restart', async () => {
    const webhook = context.services.billing.usageWebhook!;
    failuresLeft = 2;
    await webhook.pass();
    expect(deliveries).toHaveLength(5);
    expect(await webhook.pending()).toBe(2);
    // Nothing is due before the back-off.
    await webhook.pass();
    expect(deliveries).toHaveLength(5);
    clock.advance(1_000);
    await webhook.pass();
    expect(deliveries).toHaveLength(7);
    expect(await webhook.pending()).toBe(0);
    const delivered = deliveries.filter((_, index) => index >= 2).map((delivery) => JSON.parse(delivery.body).call.request_id);
    expect(new Set(delivered)).toEqual(new Set(requestIds));
    for (const delivery of deliveries) {
      verifySignature(delivery.headers['x-switchyard-signature'], delivery.body, SECRET, 300, clock.nowMs());
      expect(() =>
        verifySignature(delivery.headers['x-switchyard-signature'], delivery.body, 'another-secret-0123456789', 300, clock.nowMs()),
      ).toThrow();
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: 'call.settled',
        call: { call_id: Number(delivery.headers['x-switchyard-delivery']) },
      });
    }

    // A new call while the receiver is down; the process "restarts" (a new sink on the same database) and delivers it.
    failuresLeft = 1;
    const client = new OpenAI({ apiKey: buyer.systemToken, baseURL: `${url}/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'late' }] })
      .withResponse();
    await settledCount(6);
    await webhook.pass();
    expect(await webhook.pending()).toBe(1);
    await webhook.close();
    const restarted = new UsageWebhook(
      { db: context.storage.db, clock, logger: context.services.logger },
      { url: receiverUrl, secret: SECRET, pollMs: 86_400_000, timeoutMs: 5_000, firstBackoffMs: 1_000, maxBackoffMs: 4_000 },
    );
    clock.advance(1_000);
    await restarted.pass();
    expect(await restarted.pending()).toBe(0);
    expect(JSON.parse(deliveries.at(-1)!.body).call.request_id).toBe(response.headers.get('x-request-id'));
    await restarted.close();
  });
});
