import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCardProcessor, hmacHex, type CardProcessor } from '../fakes/card-processor.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { cardConfig, deliver, entryCount, expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

describe('card payments against the processor double', () => {
  let processor: CardProcessor;
  let context: TestContext;
  beforeEach(async () => {
    processor = await startCardProcessor();
    context = await paymentsContext({ config: { payments: { card: cardConfig(processor) } } });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await processor.close();
  });

  const checkout = (token: string, payload: unknown, prefix = '/api/v1/wallet') =>
    context.app.inject({
      method: 'POST',
      url: `${prefix}/card/checkout`,
      headers: bearer(token),
      payload: payload as Record<string, unknown>,
    });
  const confirm = (token: string, sessionId: string, prefix = '/api/v1/wallet') =>
    context.app.inject({ method: 'POST', url: `${prefix}/card/confirm`, headers: bearer(token), payload: { session_id: sessionId } });
  const send = (event: unknown, options: { secret?: string; timestampSeconds?: number } = {}) => {
    const raw = JSON.stringify(event);
    return deliver(context, raw, processor.signature(raw, options));
  };
  const balance = async (customerId: number) => (await walletOf(context, customerId)).balanceMicros;
  const spend = async (customerId: number, micros: number) => {
    const response = await context.app.inject({
      method: 'POST',
      url: `/api/admin/customers/${customerId}/wallet/adjust`,
      headers: { ...operatorHeaders, 'idempotency-key': `spend-${Math.random()}` },
      payload: { amount_micros: -micros, reason: 'spent on calls' },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  async function openSession(token: string, packId = 'pack-10') {
    const response = await checkout(token, { pack_id: packId });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { session_id: string; checkout_url: string; payment: { payment_id: string; status: string } };
  }

  it('creates a hosted checkout session at the processor for a configured pack (USD cents, metadata, idempotency key)', async () => {
    const buyer = await newCustomer(context);
    const body = await openSession(buyer.systemToken, 'pack-100');
    expect(body.checkout_url).toBe(`${processor.url}/pay/${body.session_id}`);
    expect(body.payment).toMatchObject({
      status: 'open',
      amount: { micros: 100_000_000 },
      credit: { micros: 105_000_000 },
      wallet: 'token',
    });
    const created = processor.requests.find((request) => request.method === 'POST')!;
    expect(created.authorized).toBe(true);
    expect(created.idempotencyKey).toBe(`checkout-${body.payment.payment_id}`);
    expect(created.form).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][unit_amount]': '10000',
      'line_items[0][price_data][currency]': 'usd',
      'metadata[payment_id]': body.payment.payment_id,
    });
    expect((await checkout(buyer.systemToken, { pack_id: 'nope' })).statusCode).toBe(422);
    expect((await checkout(buyer.systemToken, { pack_id: 'pack-10', amount: 1 })).statusCode).toBe(422);
    expect((await checkout(buyer.systemToken, {})).statusCode).toBe(422);
    const listed = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/payments', headers: bearer(buyer.systemToken) });
    expect(listed.json().purchases).toMatchObject([{ payment_id: body.payment.payment_id, method: 'card', status: 'open' }]);
    expect(await balance(buyer.customerId)).toBe(0);
  });

  it('confirm credits a paid session once; unpaid stays open; another customer gets 404', async () => {
    const buyer = await newCustomer(context);
    const intruder = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken);
    const early = await confirm(buyer.systemToken, session_id);
    expect(early.json()).toMatchObject({ credited: false, payment: { status: 'open' } });
    processor.pay(session_id);
    expect((await confirm(intruder.systemToken, session_id)).statusCode).toBe(404);
    const paid = await confirm(buyer.systemToken, session_id);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ credited: true, payment: { status: 'paid', credit: { micros: 10_000_000 } } });
    const again = await confirm(buyer.systemToken, session_id);
    expect(again.json()).toMatchObject({ credited: false, payment: { status: 'paid' } });
    expect(await balance(buyer.customerId)).toBe(10_000_000);
    expect(await balance(intruder.customerId)).toBe(0);
    // The cash-wallet route does not confirm a token-wallet session.
    expect((await confirm(buyer.systemToken, session_id, '/api/v1/cash-wallet')).statusCode).toBe(404);
  });

  it('cash-wallet card checkout credits the cash wallet', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken)
      .then(() => checkout(buyer.systemToken, { pack_id: 'pack-25' }, '/api/v1/cash-wallet'))
      .then((response) => response.json());
    processor.pay(session_id);
    const paid = await confirm(buyer.systemToken, session_id, '/api/v1/cash-wallet');
    expect(paid.json()).toMatchObject({ credited: true, payment: { wallet: 'cash' } });
    expect(await walletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: 0, cashBalanceMicros: 25_000_000 });
  });

  describe('webhook signature', () => {
    const now = () => Math.floor(Date.now() / 1000);
    let raw: string;
    let buyer: Awaited<ReturnType<typeof newCustomer>>;
    beforeEach(async () => {
      buyer = await newCustomer(context);
      const { session_id } = await openSession(buyer.systemToken);
      raw = JSON.stringify(processor.event('checkout.session.completed', processor.pay(session_id)));
    });
    const good = (body = raw, t = now()) => `t=${t},v1=${hmacHex(processor.webhookSecret, t, body)}`;

    const rejected: [string, () => { body: string; header: string | undefined }][] = [
      ['missing header', () => ({ body: raw, header: undefined })],
      ['empty header', () => ({ body: raw, header: '' })],
      ['garbage header', () => ({ body: raw, header: 'not a signature' })],
      ['no timestamp', () => ({ body: raw, header: `v1=${hmacHex(processor.webhookSecret, now(), raw)}` })],
      ['non-numeric timestamp', () => ({ body: raw, header: `t=abc,v1=${hmacHex(processor.webhookSecret, now(), raw)}` })],
      ['two timestamps', () => ({ body: raw, header: `t=${now()},t=${now()},v1=${hmacHex(processor.webhookSecret, now(), raw)}` })],
      ['stale timestamp (301 s old)', () => ({ body: raw, header: good(raw, now() - 301) })],
      ['future timestamp (301 s ahead)', () => ({ body: raw, header: good(raw, now() + 301) })],
      ['wrong secret', () => ({ body: raw, header: processor.signature(raw, { secret: 'whsec_wrong' }) })],
      ['v0 only', () => ({ body: raw, header: `t=${now()},v0=${hmacHex(processor.webhookSecret, now(), raw)}` })],
      [
        'v1 not hex / wrong length',
        () => ({ body: raw, header: `t=${now()},v1=${hmacHex(processor.webhookSecret, now(), raw).slice(0, 40)}` }),
      ],
      ['tampered body', () => ({ body: raw.replace('"paid"', '"paid" '), header: good(raw) })],
      ['re-serialized JSON', () => ({ body: JSON.stringify(JSON.parse(raw), null, 2), header: good(raw) })],
      [
        'signature of the body alone (no timestamp prefix)',
        () => ({ body: raw, header: `t=${now()},v1=${createHmac('sha256', processor.webhookSecret).update(raw).digest('hex')}` }),
      ],
      [
        'timestamp of the header differs from the signed one',
        () => ({ body: raw, header: `t=${now() - 10},v1=${hmacHex(processor.webhookSecret, now(), raw)}` }),
      ],
      ['several v1, none good', () => ({ body: raw, header: `t=${now()},v1=${'0'.repeat(64)},v1=${hmacHex('whsec_other', now(), raw)}` })],
    ];
    it.each(rejected)('rejects %s with 400 and changes nothing', async (_name, make) => {
      const { body, header } = make();
      const response = await deliver(context, body, header);
      expect(response.statusCode, response.body).toBe(400);
      expect(await balance(buyer.customerId)).toBe(0);
      expect(await context.storage.db.selectFrom('payment_events').selectAll().execute()).toEqual([]);
    });

    const accepted: [string, () => string][] = [
      ['a fresh v1', () => good()],
      ['several v1 with one good', () => `t=${now()},v1=${'a'.repeat(64)},v1=${hmacHex(processor.webhookSecret, now(), raw)}`],
      ['v0 alongside a good v1', () => `t=${now()},v0=${'b'.repeat(64)},v1=${hmacHex(processor.webhookSecret, now(), raw)}`],
      ['a timestamp 290 s old', () => good(raw, now() - 290)],
      ['a timestamp 290 s ahead', () => good(raw, now() + 290)],
    ];
    it.each(accepted)('accepts %s and credits once', async (_name, make) => {
      const response = await deliver(context, raw, make());
      expect(response.statusCode, response.body).toBe(200);
      expect(await balance(buyer.customerId)).toBe(10_000_000);
    });
  });

  it('20 concurrent duplicate deliveries and the other completion events credit once', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken);
    const session = processor.pay(session_id);
    const event = processor.event('checkout.session.completed', session);
    const responses = await Promise.all(Array.from({ length: 20 }, () => send(event)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(responses.filter((response) => response.json().duplicate === false)).toHaveLength(1);
    // A different event about the same paid session (another id) credits nothing more.
    expect((await send(processor.event('checkout.session.async_payment_succeeded', session))).statusCode).toBe(200);
    expect(await balance(buyer.customerId)).toBe(10_000_000);
    const credits = await context.storage.db.selectFrom('ledger_entries').selectAll().where('kind', '=', 'card_payment').execute();
    expect(credits).toHaveLength(2);
  });

  it('confirm and webhook racing credit once', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken);
    const session = processor.pay(session_id);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => confirm(buyer.systemToken, session_id)),
      ...Array.from({ length: 5 }, () => send(processor.event('checkout.session.completed', session))),
    ]);
    expect(results.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
    expect(await balance(buyer.customerId)).toBe(10_000_000);
    expect(results.slice(0, 5).filter((response) => response.json().credited === true).length).toBeLessThanOrEqual(1);
  });

  it('asynchronous payments: completed unpaid → pending, then succeeded credits; failed never credits', async () => {
    const buyer = await newCustomer(context);
    const first = await openSession(buyer.systemToken);
    const pending = processor.pay(first.session_id, { async: true });
    await send(processor.event('checkout.session.completed', pending));
    const listed = async () =>
      (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/payments', headers: bearer(buyer.systemToken) })).json().purchases;
    expect((await listed())[0]).toMatchObject({ status: 'pending' });
    expect(await balance(buyer.customerId)).toBe(0);
    await send(processor.event('checkout.session.async_payment_succeeded', { ...pending, payment_status: 'paid' }));
    expect(await balance(buyer.customerId)).toBe(10_000_000);

    // Out of order: failed arrives before completed; the payment ends failed and uncredited.
    const second = await openSession(buyer.systemToken);
    const unpaid = processor.pay(second.session_id, { async: true });
    await send(processor.event('checkout.session.async_payment_failed', unpaid));
    await send(processor.event('checkout.session.completed', unpaid));
    expect((await listed())[0]).toMatchObject({ payment_id: second.payment.payment_id, status: 'failed' });
    expect(await balance(buyer.customerId)).toBe(10_000_000);
  });

  it('a paid session whose amount or currency differs from the pack is not credited', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken);
    const session = processor.pay(session_id, { amountTotal: 100 });
    expect((await send(processor.event('checkout.session.completed', session))).statusCode).toBe(200);
    expect(await balance(buyer.customerId)).toBe(0);
    const other = await openSession(buyer.systemToken);
    processor.pay(other.session_id, { currency: 'eur' });
    expect((await confirm(buyer.systemToken, other.session_id)).json()).toMatchObject({ credited: false, payment: { status: 'failed' } });
    expect(await balance(buyer.customerId)).toBe(0);
  });

  it('a refund claws back what is unspent and records the rest as debt, repaid from the next payment', async () => {
    const buyer = await newCustomer(context);
    const { session_id, payment } = await openSession(buyer.systemToken);
    const session = processor.pay(session_id);
    await send(processor.event('checkout.session.completed', session));
    await spend(buyer.customerId, 4_000_000);
    const refund = processor.event('charge.refunded', processor.refundCharge(session_id, 1000));
    expect((await send(refund)).statusCode).toBe(200);
    expect((await send(refund)).json()).toMatchObject({ duplicate: true });
    // The same refund again under a new event id (cumulative amount): nothing more.
    await send(processor.event('charge.refunded', processor.refundCharge(session_id, 1000)));
    expect(await balance(buyer.customerId)).toBe(0);
    const listed = (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/payments', headers: bearer(buyer.systemToken) })).json()
      .purchases;
    expect(listed[0]).toMatchObject({
      payment_id: payment.payment_id,
      refunded: { micros: 10_000_000 },
      clawed_back: { micros: 6_000_000 },
      debt: { micros: 4_000_000 },
    });
    // The next paid pack repays the debt first.
    const next = await openSession(buyer.systemToken);
    processor.pay(next.session_id);
    expect((await confirm(buyer.systemToken, next.session_id)).json()).toMatchObject({ credited: true });
    expect(await balance(buyer.customerId)).toBe(6_000_000);
    const debts = await context.storage.db.selectFrom('payment_debts').selectAll().execute();
    expect(debts).toMatchObject([{ amount_micros: 4_000_000, repaid_micros: 4_000_000 }]);
  });

  it('partial refunds claw back proportionally and cumulatively', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken, 'pack-100');
    await send(processor.event('checkout.session.completed', processor.pay(session_id)));
    expect(await balance(buyer.customerId)).toBe(105_000_000);
    const half = processor.event('charge.refunded', processor.refundCharge(session_id, 5000));
    const full = processor.event('charge.refunded', processor.refundCharge(session_id, 10000));
    // Delivered out of order: the full refund first, then the older partial one.
    await send(full);
    await send(half);
    expect(await balance(buyer.customerId)).toBe(0);
  });

  it('a refund delivered before the completion (payment intent unknown here) ends refunded with nothing credited', async () => {
    const buyer = await newCustomer(context);
    const { session_id } = await openSession(buyer.systemToken);
    const session = processor.pay(session_id);
    await send(processor.event('charge.refunded', processor.refundCharge(session_id, 1000)));
    expect(processor.requests.some((request) => request.path.startsWith('/v1/checkout/sessions?payment_intent='))).toBe(true);
    expect(await balance(buyer.customerId)).toBe(0);
    await send(processor.event('checkout.session.completed', session));
    expect(await balance(buyer.customerId)).toBe(0);
    const row = await context.storage.db.selectFrom('payments').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'paid', refunded_micros: 10_000_000, clawed_micros: 10_000_000, debt_micros: 0 });
  });

  it('unknown sessions and event types are acknowledged without effect; bad JSON with a good signature is 400', async () => {
    const before = await entryCount(context);
    expect(
      (
        await send(
          processor.event('checkout.session.completed', { id: 'cs_unknown', payment_status: 'paid', amount_total: 1000, currency: 'usd' }),
        )
      ).statusCode,
    ).toBe(200);
    expect((await send(processor.event('customer.created', { id: 'cus_1' }))).statusCode).toBe(200);
    const raw = '{"id": "evt_1", "type": ';
    expect((await deliver(context, raw, processor.signature(raw))).statusCode).toBe(400);
    expect(await entryCount(context)).toBe(before);
  });

  it('a processor that refuses the key answers 502 and records nothing', async () => {
    await context.close();
    context = await paymentsContext({ config: { payments: { card: { ...cardConfig(processor), secretKey: 'sk_wrong' } } } });
    const buyer = await newCustomer(context);
    expect((await checkout(buyer.systemToken, { pack_id: 'pack-10' })).statusCode).toBe(502);
    expect(await context.storage.db.selectFrom('payments').selectAll().execute()).toEqual([]);
  });
});
