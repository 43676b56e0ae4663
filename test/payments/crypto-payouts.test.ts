/**
 * Saved crypto refund addresses have an effect: the excess of an over-paid order and an operator's refund go to
 * the customer's address on the order's network through the processor's payout API, once each; a payout without
 * an address waits until one is saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCryptoProcessor, type CryptoProcessor } from '../fakes/crypto-processor.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

describe('crypto payouts to saved refund addresses', () => {
  let crypto: CryptoProcessor;
  let context: TestContext;
  beforeAll(async () => {
    crypto = await startCryptoProcessor();
    context = await paymentsContext({
      config: { payments: { crypto: { enabled: true, apiBaseUrl: crypto.url, apiKey: crypto.apiKey, ipnSecret: crypto.ipnSecret } } },
    });
  });
  afterAll(async () => {
    await expectInvariants(context);
    await context.close();
    await crypto.close();
  });

  const post = (token: string, url: string, payload: Record<string, unknown>) =>
    context.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const orderFor = async (token: string, payCurrency: string) => {
    const response = await post(token, '/api/v1/wallet/crypto/checkout', { pack_id: 'pack-25', pay_currency: payCurrency });
    expect(response.statusCode, response.body).toBe(201);
    const orderId = response.json().order_id as string;
    return { orderId, invoiceId: [...crypto.invoices.values()].find((invoice) => invoice.order_id === orderId)!.id };
  };
  const ipn = async (body: unknown) => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/crypto/ipn',
      headers: { 'content-type': 'application/json', 'x-nowpayments-sig': crypto.sign(body) },
      payload: JSON.stringify(body),
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const payoutsTo = (address: string) => crypto.payouts.filter((payout) => payout.address === address);

  it('an over-paid order: credited once, the excess paid out to the saved address on its network, once', async () => {
    const buyer = await newCustomer(context);
    const saved = await post(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses', { network: 'ethereum', address: ETH_ADDRESS });
    expect(saved.statusCode, saved.body).toBe(201);
    const { orderId, invoiceId } = await orderFor(buyer.systemToken, 'eth');
    const payment = crypto.pay(invoiceId, { status: 'finished', payAmount: 0.01, actuallyPaid: 0.0125 });
    await ipn(payment);
    await ipn({ ...payment, outcome_amount: 0.0125 }); // a second, different callback of the same payment
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);
    expect(payoutsTo(ETH_ADDRESS)).toEqual([expect.objectContaining({ currency: 'eth', amount: '0.0025' })]);
    const order = (
      await context.app.inject({ method: 'GET', url: `/api/v1/wallet/crypto/orders/${orderId}`, headers: bearer(buyer.systemToken) })
    ).json();
    expect(order.payouts).toEqual([
      expect.objectContaining({ kind: 'overpayment', network: 'ethereum', amount: '0.0025', address: ETH_ADDRESS, status: 'sent' }),
    ]);
    expect(order.payouts[0].processor_payout_id).toBe(payoutsTo(ETH_ADDRESS)[0]!.id);
  });

  it('without an address on that network the excess waits, and goes out when the customer saves one', async () => {
    const buyer = await newCustomer(context);
    const { orderId, invoiceId } = await orderFor(buyer.systemToken, 'btc');
    await ipn(crypto.pay(invoiceId, { status: 'finished', payAmount: 0.0004, actuallyPaid: 0.0005 }));
    const url = `/api/v1/wallet/crypto/orders/${orderId}`;
    expect((await context.app.inject({ method: 'GET', url, headers: bearer(buyer.systemToken) })).json().payouts).toEqual([
      expect.objectContaining({ kind: 'overpayment', network: 'bitcoin', amount: '0.0001', address: null, status: 'awaiting_address' }),
    ]);
    // An address on another network does not take it.
    await post(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses', { network: 'ethereum', address: ETH_ADDRESS });
    expect((await context.app.inject({ method: 'GET', url, headers: bearer(buyer.systemToken) })).json().payouts[0].status).toBe(
      'awaiting_address',
    );
    const before = payoutsTo(BTC_ADDRESS).length;
    await post(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses', { network: 'bitcoin', address: BTC_ADDRESS });
    expect(payoutsTo(BTC_ADDRESS).length).toBe(before + 1);
    expect(payoutsTo(BTC_ADDRESS).at(-1)).toMatchObject({ currency: 'btc', amount: '0.0001' });
    expect((await context.app.inject({ method: 'GET', url, headers: bearer(buyer.systemToken) })).json().payouts[0]).toMatchObject({
      status: 'sent',
      address: BTC_ADDRESS,
    });
  });

  it('an operator refund pays the coin back to the saved address and claws the credit back, once; no address → 409, nothing changes', async () => {
    const buyer = await newCustomer(context);
    const { orderId, invoiceId } = await orderFor(buyer.systemToken, 'sol');
    await ipn(crypto.pay(invoiceId, { status: 'finished', payAmount: 0.15, actuallyPaid: 0.15 }));
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);
    const refund = () =>
      context.app.inject({ method: 'POST', url: `/api/admin/billing/crypto-orders/${orderId}/refund`, headers: operatorHeaders });
    const refused = await refund();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message ?? refused.body).toMatch(/refund address/);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);

    const solana = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
    expect(
      (await post(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses', { network: 'solana', address: solana })).statusCode,
    ).toBe(201);
    const done = await refund();
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ refunded: { micros: 25_000_000 }, clawed_back: { micros: 25_000_000 } });
    expect(done.json().payouts).toEqual([expect.objectContaining({ kind: 'refund', amount: '0.15', address: solana, status: 'sent' })]);
    expect(payoutsTo(solana)).toEqual([expect.objectContaining({ currency: 'sol', amount: '0.15' })]);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(0);
    expect((await refund()).statusCode).toBe(409);
    expect(payoutsTo(solana)).toHaveLength(1);
    // Customers cannot call the operator route.
    const asCustomer = await context.app.inject({
      method: 'POST',
      url: `/api/admin/billing/crypto-orders/${orderId}/refund`,
      headers: bearer(buyer.systemToken),
    });
    expect([401, 403, 404]).toContain(asCustomer.statusCode);
  });
});
