import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startCryptoProcessor, type CryptoProcessor } from '../fakes/crypto-processor.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { cardConfig, expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

describe('POST /api/v1/wallet/top-up', () => {
  let card: CardProcessor;
  let crypto: CryptoProcessor;
  let context: TestContext;
  beforeEach(async () => {
    card = await startCardProcessor();
    crypto = await startCryptoProcessor();
    context = await paymentsContext({
      config: {
        payments: {
          card: cardConfig(card),
          crypto: { enabled: true, apiBaseUrl: crypto.url, apiKey: crypto.apiKey, ipnSecret: crypto.ipnSecret },
        },
      },
    });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await card.close();
    await crypto.close();
  });

  const post = (token: string, url: string, payload: Record<string, unknown>) =>
    context.app.inject({ method: 'POST', url, headers: bearer(token), payload });

  it('loads the credit of a paid card session or crypto order once per payment; others get 404', async () => {
    const buyer = await newCustomer(context);
    const intruder = await newCustomer(context);
    const session = (await post(buyer.systemToken, '/api/v1/cash-wallet/card/checkout', { pack_id: 'pack-10' })).json();
    expect((await post(buyer.systemToken, '/api/v1/wallet/top-up', { session_id: session.session_id })).json()).toMatchObject({
      credited: false,
      purchase: { status: 'open' },
    });
    card.pay(session.session_id);
    expect((await post(intruder.systemToken, '/api/v1/wallet/top-up', { session_id: session.session_id })).statusCode).toBe(404);
    const loads = await Promise.all(
      Array.from({ length: 10 }, () => post(buyer.systemToken, '/api/v1/wallet/top-up', { session_id: session.session_id })),
    );
    expect(loads.filter((response) => response.json().credited === true).length).toBeLessThanOrEqual(1);
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ cashBalanceMicros: 10_000_000, balanceMicros: 0 });

    const order = (await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', { pack_id: 'pack-25', pay_currency: 'eth' })).json();
    const invoiceId = [...crypto.invoices.values()].find((invoice) => invoice.order_id === order.order_id)!.id;
    crypto.pay(invoiceId, { status: 'finished' });
    expect((await post(intruder.systemToken, '/api/v1/wallet/top-up', { order_id: order.order_id })).statusCode).toBe(404);
    expect((await post(buyer.systemToken, '/api/v1/wallet/top-up', { order_id: order.order_id })).json()).toMatchObject({
      credited: true,
      purchase: { status: 'paid' },
    });
    expect((await post(buyer.systemToken, '/api/v1/wallet/top-up', { order_id: order.order_id })).json()).toMatchObject({
      credited: false,
    });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ cashBalanceMicros: 10_000_000, balanceMicros: 25_000_000 });
    expect((await post(buyer.systemToken, '/api/v1/wallet/top-up', { session_id: 'x', order_id: 'y' })).statusCode).toBe(422);
  });
});
