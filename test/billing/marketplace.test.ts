import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, type TestContext } from '../helpers/context.js';
import { startMarketplace, type MarketplaceProvider } from '../fakes/marketplace.js';
import { billingContext, expectLedgerConsistent } from './helpers.js';

describe('marketplace registration', () => {
  let context: TestContext;
  let provider: MarketplaceProvider;
  beforeEach(async () => {
    provider = await startMarketplace();
    context = await billingContext({ config: { marketplace: { providerUrl: provider.url, secret: provider.secret } } });
  });
  afterEach(async () => {
    await expectLedgerConsistent(context);
    await context.close();
    await provider.close();
  });

  const register = (email: string, licenseKey: string) =>
    context.app.inject({ method: 'POST', url: '/api/v1/marketplace/register', payload: { email, license_key: licenseKey } });

  it('creates a buyer with $200 of token-wallet credit and a System Token shown once', async () => {
    provider.licences.set('LIC-AAAA-0001', { email: 'Buyer@Example.com' });
    const response = await register('buyer@example.com', 'LIC-AAAA-0001');
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body.credit).toEqual({ micros: 200_000_000, usd: '200.000000' });
    expect(provider.calls).toEqual([{ licenseKey: 'LIC-AAAA-0001', authorized: true }]);
    const status = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/status', headers: bearer(body.system_token) });
    expect(status.json()).toMatchObject({ balance: { micros: 200_000_000 }, available: { micros: 200_000_000 }, holds: { micros: 0 } });
    const payments = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/payments', headers: bearer(body.system_token) });
    expect(payments.json().payments).toMatchObject([{ kind: 'marketplace_credit', wallet: 'token', amount: { micros: 200_000_000 } }]);
  });

  it('refuses a licence used twice, even for another email, without a second credit', async () => {
    provider.licences.set('LIC-TWICE', { email: 'first@example.com' });
    expect((await register('first@example.com', 'LIC-TWICE')).statusCode).toBe(201);
    const again = await register('first@example.com', 'LIC-TWICE');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'CONFLICT', detail: 'This licence key has already been used' });
    const customers = await context.storage.db.selectFrom('customers').select('id').execute();
    expect(customers).toHaveLength(1);
  });

  it('refuses unknown licences, other emails and refunded purchases (nothing created)', async () => {
    provider.licences.set('LIC-REFUNDED', { email: 'r@example.com', refunded: true });
    provider.licences.set('LIC-OTHER', { email: 'owner@example.com' });
    expect((await register('x@example.com', 'LIC-UNKNOWN')).statusCode).toBe(403);
    expect((await register('thief@example.com', 'LIC-OTHER')).statusCode).toBe(403);
    expect((await register('r@example.com', 'LIC-REFUNDED')).statusCode).toBe(403);
    const invalid = await register('not-an-email', 'LIC-OTHER');
    expect(invalid.statusCode).toBe(422);
    expect(await context.storage.db.selectFrom('customers').select('id').execute()).toHaveLength(0);
    expect(await context.storage.db.selectFrom('ledger_entries').select('id').execute()).toHaveLength(0);
  });

  it('grants once under 100 concurrent claims of the same licence', async () => {
    provider.licences.set('LIC-RACE', { email: 'race@example.com' });
    const responses = await Promise.all(Array.from({ length: 100 }, () => register('race@example.com', 'LIC-RACE')));
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(99);
    const credits = await context.storage.db
      .selectFrom('ledger_entries')
      .select('amount_micros')
      .where('kind', '=', 'marketplace_credit')
      .where('amount_micros', '>', 0)
      .execute();
    expect(credits).toEqual([{ amount_micros: 200_000_000 }]);
  });
});
