import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PDFParse } from 'pdf-parse';
import { startCryptoProcessor, type CryptoProcessor } from '../fakes/crypto-processor.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

describe('crypto payments against the processor double', () => {
  let processor: CryptoProcessor;
  let context: TestContext;
  beforeEach(async () => {
    processor = await startCryptoProcessor();
    context = await paymentsContext({
      config: {
        payments: {
          crypto: {
            enabled: true,
            apiBaseUrl: processor.url,
            apiKey: processor.apiKey,
            ipnSecret: processor.ipnSecret,
            maxRefundAddresses: 3,
          },
          seller: { name: 'Switchyard Test Seller Ltd', address: '1 Test Street, London', email: 'billing@switchyard.example' },
        },
      },
    });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await processor.close();
  });

  const get = (token: string, url: string) => context.app.inject({ method: 'GET', url, headers: bearer(token) });
  const post = (token: string, url: string, payload: Record<string, unknown>) =>
    context.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const ipn = (body: unknown, signature: string | null = processor.sign(body)) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/crypto/ipn',
      headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-nowpayments-sig': signature }) },
      payload: JSON.stringify(body),
    });
  async function order(token: string, payCurrency = 'btc', prefix = '/api/v1/wallet') {
    const response = await post(token, `${prefix}/crypto/checkout`, { pack_id: 'pack-25', pay_currency: payCurrency });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    const invoice = [...processor.invoices.values()].find((candidate) => candidate.order_id === body.order_id)!;
    return { body, invoiceId: invoice.id };
  }

  it('lists coins and networks from config and opens an invoice in USD with the chosen coin', async () => {
    const buyer = await newCustomer(context);
    const options = (await get(buyer.systemToken, '/api/v1/wallet/crypto/options')).json();
    expect(options.coins).toContainEqual({ currency: 'btc', name: 'Bitcoin', network: 'bitcoin' });
    expect(options.price_currency).toBe('USD');
    const { body, invoiceId } = await order(buyer.systemToken);
    expect(body).toMatchObject({
      status: 'open',
      pay_currency: 'btc',
      amount: { micros: 25_000_000 },
      invoice_url: `${processor.url}/invoice/${invoiceId}`,
    });
    expect(processor.invoices.get(invoiceId)).toMatchObject({
      price_amount: 25,
      price_currency: 'usd',
      pay_currency: 'btc',
      order_id: body.order_id,
    });
    expect((await post(buyer.systemToken, '/api/v1/wallet/crypto/checkout', { pack_id: 'pack-25', pay_currency: 'doge' })).statusCode).toBe(
      422,
    );
  });

  it('order refresh: partial payment shown and not credited; paid in full credited once; receipt only when paid', async () => {
    const buyer = await newCustomer(context);
    const { body, invoiceId } = await order(buyer.systemToken);
    const url = `/api/v1/wallet/crypto/orders/${body.order_id}`;
    expect((await get(buyer.systemToken, `${url}/receipt.pdf`)).statusCode).toBe(404);
    processor.pay(invoiceId, { status: 'partially_paid', payAmount: 0.0004, actuallyPaid: 0.0001 });
    expect((await get(buyer.systemToken, url)).json()).toMatchObject({
      status: 'partially_paid',
      actually_paid: '0.0001',
      receipt_available: false,
    });
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(0);
    processor.pay(invoiceId, { status: 'finished', payAmount: 0.0004, actuallyPaid: 0.0004 });
    const views = await Promise.all(Array.from({ length: 5 }, () => get(buyer.systemToken, url)));
    expect(views.map((view) => view.json().status)).toEqual(Array(5).fill('paid'));
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);
    // The IPN of the same finished payment afterwards credits nothing more.
    expect((await ipn(processor.payments.get(invoiceId)![0])).statusCode).toBe(200);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);

    const receipt = await get(buyer.systemToken, `${url}/receipt.pdf`);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.headers['content-type']).toBe('application/pdf');
    expect(receipt.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = (await new PDFParse({ data: new Uint8Array(receipt.rawPayload) }).getText()).text;
    const customer = await context.services.customers.get(buyer.customerId);
    for (const expected of ['Receipt', 'Switchyard Test Seller Ltd', customer.email, body.order_id, 'USD 25.00', '0.0004 BTC', 'Paid'])
      expect(text).toContain(expected);
  });

  it('IPN: signature checked, duplicates deduplicated (20 concurrent → 1 credit), amount/currency/order checked before credit', async () => {
    const buyer = await newCustomer(context);
    const { body, invoiceId } = await order(buyer.systemToken);
    const finished = processor.pay(invoiceId, { status: 'finished' });
    expect((await ipn(finished, null)).statusCode).toBe(400);
    expect((await ipn(finished, '')).statusCode).toBe(400);
    expect((await ipn(finished, processor.sign(finished, 'wrong-secret'))).statusCode).toBe(400);
    expect((await ipn({ ...finished, actually_paid: 1 }, processor.sign(finished))).statusCode).toBe(400);
    // Signed correctly but not matching the order: nothing credited.
    for (const tampered of [
      { ...finished, price_amount: 1 },
      { ...finished, pay_currency: 'eth' },
      { ...finished, price_currency: 'eur' },
      { ...finished, invoice_id: 1 },
    ]) {
      expect((await ipn(tampered)).statusCode).toBe(200);
    }
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(0);
    const responses = await Promise.all(Array.from({ length: 20 }, () => ipn(finished)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(responses.filter((response) => response.json().duplicate === false)).toHaveLength(1);
    expect((await walletOf(context, buyer.customerId)).balanceMicros).toBe(25_000_000);
    expect((await get(buyer.systemToken, `/api/v1/wallet/crypto/orders/${body.order_id}`)).json()).toMatchObject({ status: 'paid' });
  });

  it('cash-wallet crypto checkout credits the cash wallet', async () => {
    const buyer = await newCustomer(context);
    const { invoiceId } = await order(buyer.systemToken, 'eth', '/api/v1/cash-wallet');
    await ipn(processor.pay(invoiceId, { status: 'finished' }));
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, cashBalanceMicros: 25_000_000 });
  });

  it('BOLA: another customer gets 404 for orders, receipts and refund addresses', async () => {
    const owner = await newCustomer(context);
    const intruder = await newCustomer(context);
    const { body, invoiceId } = await order(owner.systemToken);
    await ipn(processor.pay(invoiceId, { status: 'finished' }));
    expect((await get(intruder.systemToken, `/api/v1/wallet/crypto/orders/${body.order_id}`)).statusCode).toBe(404);
    expect((await get(intruder.systemToken, `/api/v1/wallet/crypto/orders/${body.order_id}/receipt.pdf`)).statusCode).toBe(404);
    expect((await get(intruder.systemToken, '/api/v1/wallet/crypto/orders/ord_doesnotexist/receipt.pdf')).statusCode).toBe(404);
    const saved = await post(owner.systemToken, '/api/v1/wallet/crypto/refund-addresses', {
      network: 'ethereum',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const addressId = saved.json().address_id as string;
    expect(
      (
        await context.app.inject({
          method: 'DELETE',
          url: `/api/v1/wallet/crypto/refund-addresses/${addressId}`,
          headers: bearer(intruder.systemToken),
        })
      ).statusCode,
    ).toBe(404);
    expect((await get(intruder.systemToken, '/api/v1/wallet/crypto/refund-addresses')).json().addresses).toEqual([]);
    expect((await get(owner.systemToken, '/api/v1/wallet/crypto/refund-addresses')).json().addresses).toHaveLength(1);
    expect(
      (
        await context.app.inject({
          method: 'DELETE',
          url: `/api/v1/wallet/crypto/refund-addresses/${addressId}`,
          headers: bearer(owner.systemToken),
        })
      ).statusCode,
    ).toBe(204);
    expect((await get(owner.systemToken, '/api/v1/wallet/crypto/refund-addresses')).json().addresses).toEqual([]);
  });

  it('refund addresses: format checked per network (EVM checksum, base58check, bech32), at most N per customer', async () => {
    const buyer = await newCustomer(context);
    const save = (network: string, address: string) =>
      post(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses', { network, address });
    expect((await save('ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).statusCode).toBe(422);
    expect((await save('ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1bea')).statusCode).toBe(422);
    expect((await save('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).statusCode).toBe(422);
    expect((await save('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).statusCode).toBe(422);
    expect((await save('tron', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).statusCode).toBe(422);
    expect((await save('dogecoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).statusCode).toBe(422);
    expect((await save('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).statusCode).toBe(201);
    expect((await save('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).statusCode).toBe(409);
    expect((await save('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).statusCode).toBe(201);
    expect((await save('tron', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7')).statusCode).toBe(201);
    expect((await save('solana', '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T')).statusCode).toBe(409);
    expect((await get(buyer.systemToken, '/api/v1/wallet/crypto/refund-addresses')).json().addresses).toHaveLength(3);
  });
});
