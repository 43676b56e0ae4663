/**
 * Wallet auto top-up through real billed calls (the gateway against the scripted upstream) and the card
 * processor double driven by the official client: one off-session charge per crossing of the threshold, one
 * credit per charge (the charge's webhook credits nothing more), failures alert and wait for re-arming.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CustomerAlert } from '../../src/billing/payments/ports.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { billingContext, chat, credit } from '../billing/helpers.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { cardConfig, deliver, expectInvariants, newCustomer, walletOf } from './support.js';

describe('wallet auto top-up', () => {
  let processor: CardProcessor;
  let upstream: ModelUpstream;
  let context: TestContext;
  let url: string;
  let alerts: { customerId: number; alert: CustomerAlert }[];
  beforeEach(async () => {
    processor = await startCardProcessor();
    upstream = await startModelUpstream();
    // Every call costs the same: 1000 input and 1000 output tokens on the standard card.
    upstream.setDefault(() => ({ kind: 'text', text: 'one two three', usage: { inputTokens: 1_000, outputTokens: 1_000 } }));
    alerts = [];
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { payments: { card: cardConfig(processor) } },
      alerts: { raise: async (customerId, alert) => void alerts.push({ customerId, alert }) },
    });
    url = await context.listen();
  });
  afterEach(async () => {
    await context.services.payments.autoTopup.idle();
    await expectInvariants(context);
    await context.close();
    await upstream.close();
    await processor.close();
  });

  const post = (token: string, path: string, payload: Record<string, unknown>) =>
    context.app.inject({ method: 'POST', url: path, headers: bearer(token), payload });
  const setting = (token: string, payload: Record<string, unknown>) => post(token, '/api/v1/wallet/auto-topup', payload);
  const offSessionCharges = () =>
    processor.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payment_intents');
  const available = async (customerId: number) => (await walletOf(context, customerId)).availableMicros;

  /** Waits (generously) until the settlement listener has run and its charge, if any, has finished. */
  async function settled(condition: () => Promise<boolean> | boolean = () => true): Promise<void> {
    for (let attempt = 0; attempt < 500; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Answers do not wait for their settlement; the listener runs once it committed.
      await context.services.billing.wallet.settled();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await context.services.payments.autoTopup.idle();
      if (await condition()) return;
    }
    throw new Error('condition not reached');
  }

  async function billedCall(token: string): Promise<void> {
    const response = await chat(url, token);
    expect(response.status, await response.clone().text()).toBe(200);
    await response.text();
  }

  /** A customer with a card saved by one paid $10 checkout. */
  async function buyerWithCard() {
    const buyer = await newCustomer(context);
    const checkout = await post(buyer.systemToken, '/api/v1/wallet/card/checkout', { pack_id: 'pack-10' });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const sessionId = checkout.json().session_id as string;
    const created = processor.requests.find((request) => request.path === '/v1/checkout/sessions' && request.method === 'POST')!;
    expect(created.form).toMatchObject({ customer_creation: 'always', 'payment_intent_data[setup_future_usage]': 'off_session' });
    processor.pay(sessionId);
    expect((await post(buyer.systemToken, '/api/v1/wallet/card/confirm', { session_id: sessionId })).json()).toMatchObject({
      credited: true,
    });
    return { ...buyer, sessionId };
  }

  async function callCost(customerId: number): Promise<number> {
    const call = await context.storage.db
      .selectFrom('billing_calls')
      .select('cost_micros')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'settled')
      .executeTakeFirstOrThrow();
    return Number(call.cost_micros);
  }

  it('a billed call that drops the balance below the threshold charges the saved card once and credits the pack once', async () => {
    const buyer = await buyerWithCard();
    expect(await available(buyer.customerId)).toBe(10_000_000);
    const saved = await setting(buyer.systemToken, { enabled: true, threshold_micros: 9_990_000, pack_id: 'pack-25' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      enabled: true,
      threshold: { micros: 9_990_000 },
      pack_id: 'pack-25',
      armed: true,
      charge_pending: false,
      saved_card: true,
    });

    await billedCall(buyer.systemToken);
    await settled(async () => (await available(buyer.customerId)) > 20_000_000);
    const cost = await callCost(buyer.customerId);
    expect(cost).toBeGreaterThan(10_000);
    expect(await available(buyer.customerId)).toBe(10_000_000 - cost + 25_000_000);

    const charges = offSessionCharges();
    expect(charges).toHaveLength(1);
    const saleIntent = processor.intents.get([...processor.sessions.values()][0]!.payment_intent!)!;
    expect(charges[0]!.form).toMatchObject({
      amount: '2500',
      currency: 'usd',
      confirm: 'true',
      off_session: 'true',
      customer: saleIntent.customer,
      payment_method: saleIntent.payment_method,
    });
    expect(charges[0]!.idempotencyKey).toMatch(/^auto-topup-pay_/);
    const payment = await context.storage.db
      .selectFrom('payments')
      .selectAll()
      .where('customer_id', '=', buyer.customerId)
      .where('processor_ref', 'is', null)
      .executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ status: 'paid', method: 'card', pack_id: 'pack-25' });
    const credits = await context.storage.db
      .selectFrom('ledger_entries')
      .select(['transfer_id', 'amount_micros'])
      .where('reference', '=', `payment:${payment.public_id}`)
      .execute();
    expect(new Set(credits.map((entry) => entry.transfer_id)).size).toBe(1);

    // The processor's webhook for the same charge credits nothing more (delivered twice).
    const intent = processor.intents.get(payment.payment_intent!)!;
    const raw = JSON.stringify(processor.event('payment_intent.succeeded', intent));
    for (let delivery = 0; delivery < 2; delivery += 1)
      expect((await deliver(context, raw, processor.signature(raw))).statusCode).toBe(200);
    const other = JSON.stringify(processor.event('payment_intent.succeeded', intent));
    expect((await deliver(context, other, processor.signature(other))).statusCode).toBe(200);
    expect(await available(buyer.customerId)).toBe(10_000_000 - cost + 25_000_000);
    expect(
      new Set(
        (
          await context.storage.db
            .selectFrom('ledger_entries')
            .select('transfer_id')
            .where('reference', '=', `payment:${payment.public_id}`)
            .execute()
        ).map((entry) => entry.transfer_id),
      ).size,
    ).toBe(1);

    // Above the threshold again: further calls charge nothing.
    await billedCall(buyer.systemToken);
    await settled();
    expect(offSessionCharges()).toHaveLength(1);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/auto-topup', headers: bearer(buyer.systemToken) })).json(),
    ).toMatchObject({ enabled: true, armed: true, charge_pending: false });
    expect(alerts).toEqual([]);
  });

  it("the job runner's sweep charges an armed setting whose wallet is below the threshold though no settlement was seen", async () => {
    const buyer = await buyerWithCard();
    const saved = await setting(buyer.systemToken, { enabled: true, threshold_micros: 15_000_000, pack_id: 'pack-25' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(offSessionCharges()).toHaveLength(0);
    // The sweep's time comes (every jobs.autoTopupIntervalMs): its stored row falls due and the runner looks.
    await context.storage.db.updateTable('scheduled_jobs').set({ run_at: Date.now() }).where('kind', '=', 'auto-topup.sweep').execute();
    context.services.jobs.runner.poke();
    await context.services.jobs.idle();
    await context.services.payments.autoTopup.idle();
    expect(offSessionCharges()).toHaveLength(1);
    expect(await available(buyer.customerId)).toBe(10_000_000 + 25_000_000);
    // Above the threshold now: the next sweep charges nothing.
    await context.storage.db.updateTable('scheduled_jobs').set({ run_at: Date.now() }).where('kind', '=', 'auto-topup.sweep').execute();
    context.services.jobs.runner.poke();
    await context.services.jobs.idle();
    await context.services.payments.autoTopup.idle();
    expect(offSessionCharges()).toHaveLength(1);
  });

  it('20 concurrent settlements across the threshold start one charge', async () => {
    const buyer = await buyerWithCard();
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 9_999_000, pack_id: 'pack-10' })).statusCode).toBe(200);
    const responses = await Promise.all(Array.from({ length: 20 }, () => chat(url, buyer.systemToken)));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    await Promise.all(responses.map((response) => response.text()));
    await settled(async () => (await available(buyer.customerId)) > 15_000_000);
    // Direct concurrent checks after the crossing change nothing either.
    await Promise.all(Array.from({ length: 20 }, () => context.services.payments.autoTopup.afterSettlement(buyer.customerId)));
    await settled();
    expect(offSessionCharges()).toHaveLength(1);
    const calls = await context.storage.db
      .selectFrom('billing_calls')
      .select('cost_micros')
      .where('customer_id', '=', buyer.customerId)
      .execute();
    const spent = calls.reduce((sum, call) => sum + Number(call.cost_micros), 0);
    expect(await available(buyer.customerId)).toBe(20_000_000 - spent);
    const autoPayments = await context.storage.db
      .selectFrom('payments')
      .select('status')
      .where('customer_id', '=', buyer.customerId)
      .where('processor_ref', 'is', null)
      .execute();
    expect(autoPayments).toEqual([{ status: 'paid' }]);
  });

  it('concurrent checks of a wallet below the threshold claim one charge', async () => {
    const buyer = await buyerWithCard();
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 50_000_000, pack_id: 'pack-10' })).statusCode).toBe(200);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => context.services.payments.autoTopup.afterSettlement(buyer.customerId)),
    );
    expect(outcomes.filter((outcome) => outcome === 'credited')).toHaveLength(1);
    expect(offSessionCharges()).toHaveLength(1);
    expect(await available(buyer.customerId)).toBe(20_000_000);
  });

  it('a failing card credits nothing, raises an alert and is not retried until re-armed', async () => {
    const buyer = await buyerWithCard();
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 9_990_000, pack_id: 'pack-25' })).statusCode).toBe(200);
    processor.declineOffSession = true;

    await billedCall(buyer.systemToken);
    await settled(() => alerts.length > 0);
    const cost = await callCost(buyer.customerId);
    expect(offSessionCharges()).toHaveLength(1);
    expect(await available(buyer.customerId)).toBe(10_000_000 - cost);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      customerId: buyer.customerId,
      alert: { cause: 'auto_topup_failed', details: { pack_id: 'pack-25', code: 'card_declined' } },
    });
    const failed = await context.storage.db
      .selectFrom('payments')
      .select(['status'])
      .where('customer_id', '=', buyer.customerId)
      .where('processor_ref', 'is', null)
      .execute();
    expect(failed).toEqual([{ status: 'failed' }]);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/auto-topup', headers: bearer(buyer.systemToken) })).json(),
    ).toMatchObject({ enabled: true, armed: false, charge_pending: false });

    // Still below the threshold: no second attempt.
    await billedCall(buyer.systemToken);
    await settled();
    expect(offSessionCharges()).toHaveLength(1);
    expect(alerts).toHaveLength(1);

    // Credit lifts the balance above the threshold; the next settlement re-arms, a later crossing charges again.
    processor.declineOffSession = false;
    await credit(context, buyer.customerId, 4 * cost);
    const before = await available(buyer.customerId);
    expect(before - cost).toBeGreaterThanOrEqual(9_990_000);
    await billedCall(buyer.systemToken);
    await settled();
    expect(offSessionCharges()).toHaveLength(1);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/wallet/auto-topup', headers: bearer(buyer.systemToken) })).json(),
    ).toMatchObject({ armed: true });
    for (let call = 0; call < 3 && offSessionCharges().length === 1; call += 1) {
      await billedCall(buyer.systemToken);
      await settled();
    }
    expect(offSessionCharges()).toHaveLength(2);
    await settled(async () => (await available(buyer.customerId)) > 20_000_000);
    const statuses = await context.storage.db
      .selectFrom('payments')
      .select(['status'])
      .where('customer_id', '=', buyer.customerId)
      .where('processor_ref', 'is', null)
      .orderBy('id')
      .execute();
    expect(statuses).toEqual([{ status: 'failed' }, { status: 'paid' }]);
  });

  it('a charge left processing stays pending (no second charge) until its webhook credits it once', async () => {
    const buyer = await buyerWithCard();
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 50_000_000, pack_id: 'pack-25' })).statusCode).toBe(200);
    processor.offSessionStatus = 'processing';
    expect(await context.services.payments.autoTopup.afterSettlement(buyer.customerId)).toBe('processing');
    const read = () => context.app.inject({ method: 'GET', url: '/api/v1/wallet/auto-topup', headers: bearer(buyer.systemToken) });
    expect((await read()).json()).toMatchObject({ charge_pending: true, armed: false });
    // Saving the setting re-arms it, but a charge is pending: nothing new starts.
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 50_000_000, pack_id: 'pack-25' })).json()).toMatchObject({
      armed: true,
      charge_pending: true,
    });
    expect(await context.services.payments.autoTopup.afterSettlement(buyer.customerId)).toBe('pending');
    expect(offSessionCharges()).toHaveLength(1);
    expect(await available(buyer.customerId)).toBe(10_000_000);

    const payment = await context.storage.db
      .selectFrom('payments')
      .selectAll()
      .where('customer_id', '=', buyer.customerId)
      .where('processor_ref', 'is', null)
      .executeTakeFirstOrThrow();
    expect(payment.status).toBe('pending');
    const intent = { ...processor.intents.get(payment.payment_intent!)!, status: 'succeeded' };
    const deliveries = await Promise.all(
      Array.from({ length: 10 }, () => {
        const raw = JSON.stringify(processor.event('payment_intent.succeeded', intent));
        return deliver(context, raw, processor.signature(raw));
      }),
    );
    expect(deliveries.map((response) => response.statusCode)).toEqual(Array(10).fill(200));
    expect(await available(buyer.customerId)).toBe(35_000_000);
    expect((await read()).json()).toMatchObject({ charge_pending: false });
    expect(alerts).toEqual([]);
  });

  it('turning it on without a saved card answers 409; bad input 422; GET reads the setting', async () => {
    const buyer = await newCustomer(context, 5_000_000);
    const refused = await setting(buyer.systemToken, { enabled: true, threshold_micros: 1_000_000, pack_id: 'pack-10' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.body).toMatch(/saved card/);
    const read = await context.app.inject({ method: 'GET', url: '/api/v1/wallet/auto-topup', headers: bearer(buyer.systemToken) });
    expect(read.json()).toMatchObject({ enabled: false, saved_card: false, pack_id: null });
    expect((await setting(buyer.systemToken, { enabled: false, threshold_micros: 1_000_000, pack_id: 'pack-10' })).json()).toMatchObject({
      enabled: false,
    });
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 1_000_000, pack_id: 'nope' })).statusCode).toBe(422);
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: -1, pack_id: 'pack-10' })).statusCode).toBe(422);
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: '5', pack_id: 'pack-10' })).statusCode).toBe(422);
    expect((await setting(buyer.systemToken, { enabled: true, threshold_micros: 5, pack_id: 'pack-10', extra: 1 })).statusCode).toBe(422);
    // A billed call with nothing configured charges nothing.
    await billedCall(buyer.systemToken);
    await settled();
    expect(offSessionCharges()).toHaveLength(0);
    const stored = await context.storage.db
      .selectFrom('auto_topup_settings')
      .selectAll()
      .where('customer_id', '=', buyer.customerId)
      .execute();
    expect(stored).toEqual([]);
  });
});
