import { afterAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/storage/database.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { billingContext, newCustomer } from './helpers.js';

describe('shutdown', () => {
  let upstream: ModelUpstream;
  afterAll(async () => upstream?.close());

  it('settles a call whose client left just before the service stopped, instead of meeting a closed ledger', async () => {
    upstream = await startModelUpstream();
    const context = await billingContext({ upstreamUrl: upstream.url });
    const url = await context.listen();
    const buyer = await newCustomer(context, 1_000_000);
    upstream.enqueue({ kind: 'text', text: 'one two three four five six seven eight', chunks: 8, chunkDelayMs: 300, omitUsage: true });
    const controller = new AbortController();
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${buyer.systemToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'power-ai', stream: true, messages: [{ role: 'user', content: 'count' }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('chat.completion.chunk');
    controller.abort();
    await context.app.close();
    await context.services.close();

    const reopened = await createStorage(context.storage.location);
    try {
      const calls = await reopened.db.selectFrom('billing_calls').select(['status', 'outcome', 'cost_micros']).execute();
      expect(calls).toEqual([expect.objectContaining({ status: 'settled', outcome: 'aborted' })]);
      expect(Number(calls[0]!.cost_micros)).toBeGreaterThan(0);
      expect(context.logs.join('')).not.toContain('settling a metered call failed');
    } finally {
      await reopened.close();
      await context.storage.destroy();
    }
  });
});
