/** Background responses: what the upstream is sent, what a run that cannot finish is recorded as, early refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayCall } from '../../src/gateway/execute.js';
import { responseFromCall } from '../../src/gateway/protocols/responses/run.js';
import type { StreamPart } from '../../src/gateway/normalized/index.js';
import { MODEL, fundedCustomer, storedCounts, storedSetup, type FundedCustomer, type StoredSetup } from './support.js';

const NATIVE_MODEL = 'stored-native-model';

describe('background responses', () => {
  let setup: StoredSetup;
  let customer: FundedCustomer;
  beforeAll(async () => {
    setup = await storedSetup({
      config: {
        models: [
          { id: MODEL, provider: 'scripted', upstreamModel: 'scripted-model', rateCard: 'standard' },
          {
            id: NATIVE_MODEL,
            provider: 'scripted',
            upstreamModel: 'scripted-native',
            rateCard: 'standard',
            capabilities: { responsesApi: true },
          },
        ],
      },
    });
    customer = await fundedCustomer(setup);
  });
  afterAll(async () => setup.close());

  it('runs a background response on a Responses-speaking destination as a plain foreground call upstream', async () => {
    const seen = setup.upstream.requests.length;
    const queued = await customer.client.responses.create({ model: NATIVE_MODEL, input: 'native in the background', background: true });
    await setup.context.services.gateway.responses.background.settled(queued.id);
    const [sent] = setup.upstream.requests.slice(seen);
    expect(sent!.path).toMatch(/\/responses$/);
    // An upstream asked for `background: true` answers `queued` at once and never gives the result to this call.
    expect(sent!.body.background).not.toBe(true);
    const done = await customer.client.responses.retrieve(queued.id);
    expect(done).toMatchObject({ id: queued.id, status: 'completed', background: true, model: NATIVE_MODEL });
    expect(done.output_text).toBe('Hello from the scripted model.');
  });

  it('refuses a background create naming an unknown model with a 404, storing nothing', async () => {
    const before = await storedCounts(setup);
    await expect(customer.client.responses.create({ model: 'no-such-model', input: 'x', background: true })).rejects.toMatchObject({
      status: 404,
    });
    expect(await storedCounts(setup)).toEqual(before);
  });
});

/** A call whose parts end without a finish or an error, as they do when its signal aborted mid-stream. */
function cutShortCall(native: boolean, parts: StreamPart[]): GatewayCall {
  return {
    destination: {} as GatewayCall['destination'],
    inputSize: { chars: 1, images: 0, messages: 1 },
    native,
    parts: (async function* () {
      yield* parts;
    })(),
  };
}

describe('a Responses call that ends before its terminal event', () => {
  it('becomes a failed response with an error, never one left in progress', async () => {
    const body = { model: 'power-ai', input: 'cut short' };
    const normalized = await responseFromCall(
      cutShortCall(false, [{ type: 'start' }, { type: 'text-delta', delta: 'partial' }]),
      body,
      'power-ai',
      0,
    );
    expect(normalized.response.status).toBe('failed');
    expect(normalized.error).toBeDefined();
    const inProgress = { id: 'resp_upstream', object: 'response', status: 'in_progress', model: 'upstream', output: [] };
    const native = await responseFromCall(
      cutShortCall(true, [{ type: 'start' }, { type: 'native-event', event: { type: 'response.in_progress', response: inProgress } }]),
      body,
      'power-ai',
      0,
    );
    expect(native.response).toMatchObject({ id: 'resp_upstream', status: 'failed', model: 'power-ai' });
    expect(native.error).toBeDefined();
  });
});
