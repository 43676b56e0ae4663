/**
 * Every protocol's driver ends its call however the client leaves: before the first part, and after each part,
 * streamed and not. Each abandonment leaves the hold settled and no call in flight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayCall } from '../../src/gateway/execute.js';
import type { CallSignal } from '../../src/gateway/normalized/index.js';
import type { Decoded, InboundProtocol } from '../../src/gateway/protocols/contract.js';
import { drive, type StreamSink } from '../../src/gateway/protocols/driver.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import type { TestContext } from '../helpers/context.js';
import { MODEL, billingContext, expectLedgerConsistent, newCustomer, principalFor } from './helpers.js';

/** A client connection: `leave()` is the client going away (the disconnect signal fires, the socket closes). */
class Client implements CallSignal, StreamSink {
  aborted = false;
  reason: unknown = undefined;
  closed = false;
  private listeners: Array<() => void> = [];
  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners = this.listeners.filter((entry) => entry !== listener);
  }
  leave(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.closed = true;
    this.reason = new Error('client left');
    for (const listener of this.listeners.splice(0)) listener();
  }
  async write(): Promise<void> {}
  end(): void {
    this.closed = true;
  }
}

/** The call's parts, with the client leaving once `after` parts were read (0: before the first). */
function leavingAfter(call: GatewayCall, after: number, client: Client, seen: { parts: number }): GatewayCall {
  const inner = call.parts;
  if (after === 0) client.leave();
  const parts: GatewayCall['parts'] = {
    async next() {
      const result = await inner.next();
      if (!result.done && ++seen.parts === after) client.leave();
      return result;
    },
    return: (value) => inner.return(value),
    throw: (error) => inner.throw(error),
    [Symbol.asyncIterator]() {
      return parts;
    },
    async [Symbol.asyncDispose]() {
      await inner.return(undefined);
    },
  };
  return { ...call, parts };
}

const BODIES: Record<'chat' | 'responses' | 'completions' | 'messages', Record<string, unknown>> = {
  chat: { model: MODEL, messages: [{ role: 'user', content: 'count' }], max_tokens: 16 },
  responses: { model: MODEL, input: 'count', max_output_tokens: 16, store: false },
  completions: { model: MODEL, prompt: 'count', echo: true, max_tokens: 16 },
  messages: { model: MODEL, messages: [{ role: 'user', content: 'count' }], max_tokens: 16 },
};

describe('abandoned calls settle on every protocol, streamed or not', () => {
  let upstream: ModelUpstream;
  let context: TestContext;
  beforeAll(async () => {
    upstream = await startModelUpstream();
    context = await billingContext({ upstreamUrl: upstream.url });
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  async function settled(customerId: number, count: number) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const calls = await context.storage.db
        .selectFrom('billing_calls')
        .select(['status', 'outcome'])
        .where('customer_id', '=', customerId)
        .orderBy('id')
        .execute();
      if ((calls.length >= count && calls.every((call) => call.status !== 'open')) || Date.now() > deadline) return calls;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Runs one call through the protocol's driver; the client leaves after `after` parts (never when undefined). */
  async function run(
    protocol: InboundProtocol<Decoded>,
    body: Record<string, unknown>,
    key: string,
    after: number | undefined,
  ): Promise<number> {
    const client = new Client();
    const seen = { parts: 0 };
    const gateway = context.services.gateway;
    const deps = {
      ...gateway.driver,
      execute: async (options: Parameters<typeof gateway.driver.execute>[0]) => {
        const call = await gateway.driver.execute(options);
        return leavingAfter(call, after ?? -1, client, seen);
      },
    };
    upstream.enqueue({ kind: 'text', text: 'one two three four', chunks: 4 });
    const principal = await principalFor(context, key);
    await drive(
      deps,
      protocol,
      { principal, body, headers: {}, requestId: `req_${Math.random().toString(36).slice(2)}`, signal: client },
      () => client,
    ).catch(() => undefined);
    return seen.parts;
  }

  for (const name of ['chat', 'responses', 'completions', 'messages'] as const) {
    for (const stream of [true, false]) {
      it(`${name}, ${stream ? 'streamed' : 'not streamed'}: left before the first part and after each part`, async () => {
        const protocol = context.services.gateway.protocols[name] as InboundProtocol<Decoded>;
        const body = { ...BODIES[name], stream };
        const buyer = await newCustomer(context, 100_000_000);
        const total = await run(protocol, body, buyer.systemToken, undefined);
        expect(total).toBeGreaterThan(2);
        for (let after = 0; after <= total; after += 1) await run(protocol, body, buyer.systemToken, after);
        const calls = await settled(buyer.customerId, total + 2);
        expect(calls).toHaveLength(total + 2);
        expect(calls.filter((call) => call.status === 'open')).toEqual([]);
        // Left before the first part: nothing was read, the call ended as aborted.
        expect(calls[1]).toMatchObject({ outcome: 'aborted' });
        expect(await context.services.gateway.executeDeps.calls.idle(10_000)).toBe(true);
      });
    }
  }
});
