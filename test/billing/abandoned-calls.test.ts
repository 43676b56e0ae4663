/**
 * A model call settles however its consumer ends it: abandoned before its first part (a client gone after the
 * legacy completions echo frame), or closed unread by a driver. Nothing stays open or in flight.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../src/gateway/execute.js';
import type { CallSignal } from '../../src/gateway/normalized/index.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import type { TestContext } from '../helpers/context.js';
import { MODEL, billingContext, expectLedgerConsistent, newCustomer, principalFor } from './helpers.js';

const never: CallSignal = { aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} };

describe('abandoned model calls settle', () => {
  let upstream: ModelUpstream;
  let context: TestContext;
  let url: string;
  beforeAll(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({ upstreamUrl: upstream.url });
    url = await context.listen();
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  async function openCalls(customerId: number) {
    return context.storage.db
      .selectFrom('billing_calls')
      .select(['status', 'outcome', 'hold_micros', 'cost_micros', 'input_tokens', 'output_tokens'])
      .where('customer_id', '=', customerId)
      .execute();
  }

  async function settled(customerId: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const calls = await openCalls(customerId);
      if (calls.length > 0 && calls.every((call) => call.status !== 'open')) return calls;
      if (Date.now() > deadline) return calls;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('a streamed legacy completion with echo whose client leaves at the first frame is settled, nothing in flight', async () => {
    const buyer = await newCustomer(context, 10_000_000);
    upstream.enqueue({ kind: 'text', text: 'a slow answer', chunks: 4, chunkDelayMs: 300 });
    await new Promise<void>((resolve, reject) => {
      const request = http.request(`${url}/v1/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${buyer.systemToken}`, 'content-type': 'application/json' },
      });
      request.on('response', (response) => {
        response.once('data', () => {
          // The echo frame arrived: leave.
          request.destroy();
          resolve();
        });
      });
      request.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(error)));
      request.end(JSON.stringify({ model: MODEL, prompt: 'echo me', echo: true, stream: true, max_tokens: 16 }));
    });
    const calls = await settled(buyer.customerId);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.status).not.toBe('open');
    expect(await context.services.gateway.executeDeps.calls.idle(5_000)).toBe(true);
  });

  it('a call closed before its first part settles as aborted with nothing consumed', async () => {
    const buyer = await newCustomer(context, 10_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    upstream.enqueue({ kind: 'text', text: 'never read' });
    const call = await execute(context.services.gateway.executeDeps, {
      principal,
      request: { model: MODEL, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: true } as never,
      operation: 'chat',
      requestId: 'req_abandoned',
      signal: never,
    });
    await call.parts.return(undefined);
    await call.parts.return(undefined);
    const calls = await settled(buyer.customerId);
    expect(calls).toEqual([expect.objectContaining({ status: 'settled', outcome: 'aborted' })]);
    expect(Number(calls[0]!.input_tokens) + Number(calls[0]!.output_tokens)).toBe(0);
    expect(await context.services.gateway.executeDeps.calls.idle(5_000)).toBe(true);
  });

  it('a call whose client left before anyone read it is settled by the disconnect signal alone', async () => {
    const buyer = await newCustomer(context, 10_000_000);
    const principal = await principalFor(context, buyer.systemToken);
    const listeners: Array<() => void> = [];
    const signal: CallSignal = {
      aborted: false,
      reason: undefined,
      addEventListener: (_type, listener) => void listeners.push(listener),
      removeEventListener: () => undefined,
    };
    upstream.enqueue({ kind: 'text', text: 'never read', chunks: 3, chunkDelayMs: 200 });
    await execute(context.services.gateway.executeDeps, {
      principal,
      request: { model: MODEL, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: true } as never,
      operation: 'chat',
      requestId: 'req_left',
      signal,
    });
    (signal as { aborted: boolean }).aborted = true;
    for (const listener of listeners) listener();
    const calls = await settled(buyer.customerId);
    expect(calls).toEqual([expect.objectContaining({ status: 'settled', outcome: 'aborted' })]);
    expect(await context.services.gateway.executeDeps.calls.idle(5_000)).toBe(true);
  });
});
