/**
 * What the operator console reads beyond customers' details: the customer list with balances, 30-day spend and
 * an email search; providers with masked keys and an on-demand health check; models with their price. And the
 * favicon every page load asks for.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, type SignedUp } from './support.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { settledWalletOf } from '../billing/helpers.js';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { dialects, openTestStorage } from '../helpers/databases.js';

describe.each(dialects)('console routes (%s)', (dialect) => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let ada: SignedUp;
  let bea: SignedUp;

  beforeAll(async () => {
    upstream = await startModelUpstream();
    context = await createTestContext({
      storage: await openTestStorage(dialect),
      config: {
        providers: [
          { id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-scripted-secret-9b1c' },
          { id: 'keyless', kind: 'anthropic', baseUrl: 'http://127.0.0.1:9', apiKey: '' },
        ],
        models: [
          { id: 'scripted-coder', provider: 'scripted', upstreamModel: 'scripted-model' },
          { id: 'keyless-model', provider: 'keyless', upstreamModel: 'k' },
        ],
        aliases: { 'power-ai': 'scripted-coder' },
      } as never,
    });
    ada = await signUp(context, 'ada_percent%');
    bea = await signUp(context, 'bea');
  });
  afterAll(async () => {
    await context.close();
    await upstream.close();
  });

  const admin = (url: string) => context.app.inject({ method: 'GET', url, headers: operatorHeaders });

  it('lists customers with token and cash balance and what they spent in 30 days, searchable by email', async () => {
    await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${ada.customerId}/wallet/adjust`,
      headers: { ...operatorHeaders, 'idempotency-key': `credit-${dialect}` },
      payload: { amount_micros: 5_000_000, reason: 'first credit' },
    });
    const client = new OpenAI({ apiKey: ada.systemToken, baseURL: `${await context.listen()}/v1` });
    await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 });
    const wallet = await settledWalletOf(context, ada.customerId);
    const spent = 5_000_000 - wallet.balanceMicros;
    expect(spent).toBeGreaterThan(0);

    const all = (await admin('/api/admin/customers')).json().data;
    const adaRow = all.find((row: { id: number }) => row.id === ada.customerId);
    expect(adaRow).toMatchObject({
      balance: { micros: wallet.balanceMicros },
      cash_balance: { micros: 0 },
      spent_30d: { micros: spent },
    });
    expect(all.find((row: { id: number }) => row.id === bea.customerId)).toMatchObject({
      balance: { micros: 0 },
      spent_30d: { micros: 0 },
    });

    const found = (await admin(`/api/admin/customers?email=${encodeURIComponent('ADA_PERCENT%')}`)).json().data;
    expect(found.map((row: { id: number }) => row.id)).toEqual([ada.customerId]);
    // `%` and `_` are matched as themselves, not as wildcards.
    expect((await admin('/api/admin/customers?email=%25')).json().data.map((row: { id: number }) => row.id)).toEqual([ada.customerId]);
    expect((await admin('/api/admin/customers?email=nobody-like-this')).json().data).toEqual([]);
  });

  it('shows providers with masked keys, checks them on request, and models with price and alias', async () => {
    const plain = (await admin('/api/admin/providers')).json();
    expect(JSON.stringify(plain)).not.toContain('sk-scripted-secret-9b1c');
    expect(plain.providers).toEqual([
      expect.objectContaining({ id: 'scripted', key: 'sk-…9b1c', health: null, models: ['scripted-coder'] }),
      expect.objectContaining({ id: 'keyless', key: null, health: null }),
    ]);
    expect(plain.models[0]).toMatchObject({
      id: 'scripted-coder',
      aliases: ['power-ai'],
      price: { input_usd_per_million: '4.000000', output_usd_per_million: '24.000000' },
    });
    const checked = (await admin('/api/admin/providers?check=true')).json();
    expect(checked.providers[0].health).toMatchObject({ reachable: true, status: 200 });
    expect(checked.providers[1].health).toMatchObject({ reachable: false, error: 'no key configured' });
    expect((await context.app.inject({ method: 'GET', url: '/api/admin/providers' })).statusCode).toBe(401);
  });

  it('serves /favicon.ico as a 32×32 icon', async () => {
    const icon = await context.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/x-icon');
    const bytes = icon.rawPayload;
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([bytes[6], bytes[7]]).toEqual([32, 32]);
    expect(bytes.readUInt32LE(14) + 22).toBe(bytes.length);
  });
});
