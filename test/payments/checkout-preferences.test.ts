/**
 * Purchase preferences have an effect at checkout (default pack, pay currency; amounts stay USD), and bonus codes
 * (configured and the mailed personal code) work at crypto checkout as at card checkout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailMessage } from '../../src/billing/payments/ports.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startCryptoProcessor, type CryptoProcessor } from '../fakes/crypto-processor.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { cardConfig, expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

describe('checkout defaults from purchase preferences; bonus codes on crypto checkout', () => {
  let card: CardProcessor;
  let crypto: CryptoProcessor;
  let context: TestContext;
  const mail: MailMessage[] = [];
  beforeAll(async () => {
    card = await startCardProcessor();
    crypto = await startCryptoProcessor();
    context = await paymentsContext({
      mailer: { send: async (message) => void mail.push(message) },
      config: {
        payments: {
          card: cardConfig(card),
          crypto: { enabled: true, apiBaseUrl: crypto.url, apiKey: crypto.apiKey, ipnSecret: crypto.ipnSecret },
          discountCodes: [{ code: 'WELCOME10', bonusPercent: 10, maxUses: 5 }],
          sessionDiscount: { bonusPercent: 20, validMinutes: 30 },
        },
        currencyEstimates: { rates: { EUR: 0.92, GBP: 0.8 }, asOf: '2026-11-01' },
      },
    });
  });
  afterAll(async () => {
    await expectInvariants(context);
    await context.close();
    await card.close();
    await crypto.close();
  });

  const post = (token: string, url: string, payload: Record<string, unknown> = {}) =>
    context.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const savePreferences = async (token: string, preferences: Record<string, unknown>) => {
    const response = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/purchase-preferences',
      headers: bearer(token),
      payload: { default_pack_id: null, payment_method: null, pay_currency: null, display_currency: 'USD', ...preferences },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const invoiceOf = (orderId: string) => [...crypto.invoices.values()].find((invoice) => invoice.order_id === orderId)!;
  const payInFull = async (orderId: string) => {
    const invoice = invoiceOf(orderId);
    const payment = crypto.pay(invoice.id, { status: 'finished' });
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/crypto/ipn',
      headers: { 'content-type': 'application/json', 'x-nowpayments-sig': crypto.sign(payment) },
      payload: JSON.stringify(payment),
    });
    expect(response.statusCode, response.body).toBe(200);
  };

  it('default_pack_id: a checkout without pack_id buys the saved default pack; without one it is a 422 naming pack_id', async () => {
    const buyer = await newCustomer(context);
    const none = await post(buyer.systemToken, '/api/v1/wallet/card/checkout');
    expect(none.statusCode).toBe(422);
    expect(none.json().detail[0].loc).toEqual(['body', 'pack_id']);
    await savePreferences(buyer.systemToken, { default_pack_id: 'pack-25' });
    const byCard = await post(buyer.systemToken, '/api/v1/wallet/card/checkout');
    expect(byCard.statusCode, byCard.body).toBe(201);
    expect(byCard.json().payment).toMatchObject({ amount: { micros: 25_000_000 } });
    // Given explicitly, the body wins; checkout amounts stay USD.
    const explicit = await post(buyer.systemToken, '/api/v1/wallet/card/checkout', { pack_id: 'pack-10' });
    expect(explicit.json().payment).toMatchObject({ amount: { micros: 10_000_000 } });
  });

  it('pay_currency: a crypto checkout without pay_currency uses the saved coin; the invoice stays priced in USD', async () => {
    const buyer = await newCustomer(context);
    const none = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', { pack_id: 'pack-10' });
    expect(none.statusCode).toBe(422);
    expect(none.json().detail[0].loc).toEqual(['body', 'pay_currency']);
    await savePreferences(buyer.systemToken, { default_pack_id: 'pack-100', pay_currency: 'eth', payment_method: 'crypto' });
    const order = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout');
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json()).toMatchObject({ pay_currency: 'eth', amount: { micros: 100_000_000 } });
    expect(invoiceOf(order.json().order_id)).toMatchObject({ price_amount: 100, price_currency: 'usd', pay_currency: 'eth' });
  });

  it('a saved pay currency the processor no longer takes is refused at save time', async () => {
    const buyer = await newCustomer(context);
    const response = await context.app.inject({
      method: 'PUT',
      url: '/api/v1/purchase-preferences',
      headers: bearer(buyer.systemToken),
      payload: { default_pack_id: null, payment_method: 'crypto', pay_currency: 'doge', display_currency: 'USD' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['body', 'pay_currency']);
  });

  it('display_currency: the currency estimates lead with the saved display currency; checkout currency stays USD', async () => {
    const buyer = await newCustomer(context);
    const estimates = async () =>
      (await context.app.inject({ method: 'GET', url: '/api/v1/billing/currency-estimates', headers: bearer(buyer.systemToken) })).json();
    expect((await estimates()).display).toMatchObject({ currency: 'USD', per_usd: 1 });
    await savePreferences(buyer.systemToken, { display_currency: 'GBP' });
    const after = await estimates();
    expect(after).toMatchObject({ checkout_currency: 'USD', display: { currency: 'GBP', per_usd: 0.8 } });
    expect(after.packs).toContainEqual({ pack_id: 'pack-25', price: { micros: 25_000_000, usd: '25.000000' }, price_estimate: 20 });
    // A display currency without a configured rate shows USD amounts, said so.
    await savePreferences(buyer.systemToken, { display_currency: 'JPY' });
    expect((await estimates()).display).toMatchObject({ currency: 'USD', per_usd: 1, requested: 'JPY' });
  });

  it('a configured bonus code at crypto checkout: refused codes are 422 and open no invoice; the bonus is credited with the payment', async () => {
    const buyer = await newCustomer(context);
    const invoicesBefore = crypto.invoices.size;
    const refused = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', {
      pack_id: 'pack-25',
      pay_currency: 'btc',
      discount_code: 'NOPE',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().detail[0].loc).toEqual(['body', 'discount_code']);
    expect(crypto.invoices.size).toBe(invoicesBefore);
    const order = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', {
      pack_id: 'pack-25',
      pay_currency: 'btc',
      discount_code: 'welcome10',
    });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json()).toMatchObject({ amount: { micros: 25_000_000 }, credit: { micros: 27_500_000 }, discount_code: 'WELCOME10' });
    expect(invoiceOf(order.json().order_id)).toMatchObject({ price_amount: 25 });
    await payInFull(order.json().order_id);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(27_500_000);
    const again = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', {
      pack_id: 'pack-25',
      pay_currency: 'btc',
      discount_code: 'WELCOME10',
    });
    expect(again.statusCode).toBe(422);
  });

  it('the personal code the service mails works at crypto checkout, once', async () => {
    const buyer = await newCustomer(context);
    const issued = await post(buyer.systemToken, '/api/v1/wallet/topupemail-session-discount');
    expect(issued.statusCode, issued.body).toBe(201);
    const customer = await context.services.customers.get(buyer.customerId);
    const code = /SD-[A-Za-z0-9]+/.exec(mail.filter((message) => message.to === customer.email).at(-1)!.text)![0];
    const order = await post(buyer.systemToken, '/api/v1/cash-wallet/crypto/checkout', {
      pack_id: 'pack-10',
      pay_currency: 'sol',
      discount_code: code,
    });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json()).toMatchObject({ wallet: 'cash', credit: { micros: 12_000_000 } });
    await payInFull(order.json().order_id);
    expect((await walletOf(context, buyer.customerId)).cashBalanceMicros).toBe(12_000_000);
    const reuse = await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', {
      pack_id: 'pack-10',
      pay_currency: 'sol',
      discount_code: code,
    });
    expect(reuse.statusCode).toBe(422);
  });
});
