import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import type { MailMessage } from '../../src/billing/payments/ports.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { cardConfig, expectInvariants, newCustomer, paymentsContext, walletOf } from './support.js';

describe('top-up discounts and purchase preferences', () => {
  let processor: CardProcessor;
  let context: TestContext;
  let mail: MailMessage[];
  const clock = new FakeClock(Date.UTC(2026, 4, 1, 9));
  beforeEach(async () => {
    mail = [];
    clock.set(Date.UTC(2026, 4, 1, 9));
    processor = await startCardProcessor();
    context = await paymentsContext({
      clock,
      mailer: { send: async (message) => void mail.push(message) },
      config: {
        payments: {
          card: cardConfig(processor),
          discountCodes: [
            { code: 'WELCOME10', bonusPercent: 10, maxUses: 2 },
            { code: 'OLD5', bonusPercent: 5, expiresAt: '2026-04-30T00:00:00Z' },
          ],
          sessionDiscount: { bonusPercent: 20, validMinutes: 30 },
        },
      },
    });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await processor.close();
  });

  const post = (token: string, url: string, payload: Record<string, unknown> = {}) =>
    context.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const validate = async (token: string, code: string) => (await post(token, '/api/v1/wallet/topup-discount', { code })).json();
  async function payWith(token: string, code?: string) {
    const response = await post(token, '/api/v1/wallet/card/checkout', { pack_id: 'pack-10', ...(code ? { discount_code: code } : {}) });
    if (response.statusCode !== 201) return response;
    processor.pay(response.json().session_id);
    return post(token, '/api/v1/wallet/card/confirm', { session_id: response.json().session_id });
  }

  it('bonus codes: expiry, once per customer, total uses; the bonus is loaded with the paid checkout', async () => {
    const [a, b, c] = await Promise.all([newCustomer(context), newCustomer(context), newCustomer(context)]);
    expect(await validate(a.systemToken, 'nope')).toEqual({ valid: false, reason: 'unknown' });
    expect(await validate(a.systemToken, 'OLD5')).toEqual({ valid: false, reason: 'expired' });
    expect(await validate(a.systemToken, 'welcome10')).toMatchObject({ valid: true, code: 'WELCOME10', bonus_percent: 10 });
    expect((await payWith(a.systemToken, 'OLD5')).statusCode).toBe(422);
    expect((await payWith(a.systemToken, 'WELCOME10')).json()).toMatchObject({
      credited: true,
      payment: { credit: { micros: 11_000_000 } },
    });
    expect((await walletOf(context, a.customerId)).balanceMicros).toBe(11_000_000);
    expect(await validate(a.systemToken, 'WELCOME10')).toEqual({ valid: false, reason: 'already_used' });
    expect((await payWith(a.systemToken, 'WELCOME10')).statusCode).toBe(422);
    expect((await payWith(b.systemToken, 'WELCOME10')).statusCode).toBe(200);
    expect(await validate(c.systemToken, 'WELCOME10')).toEqual({ valid: false, reason: 'used_up' });
  });

  it('total uses hold under concurrent checkouts', async () => {
    const buyers = await Promise.all(Array.from({ length: 6 }, () => newCustomer(context)));
    const responses = await Promise.all(
      buyers.map((buyer) => post(buyer.systemToken, '/api/v1/wallet/card/checkout', { pack_id: 'pack-10', discount_code: 'WELCOME10' })),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(2);
    expect(responses.filter((response) => response.statusCode === 422)).toHaveLength(4);
  });

  it('the session discount is mailed, personal, time-boxed and one at a time', async () => {
    const buyer = await newCustomer(context);
    const other = await newCustomer(context);
    const issued = await post(buyer.systemToken, '/api/v1/wallet/topupemail-session-discount');
    expect(issued.statusCode, issued.body).toBe(201);
    expect(issued.json()).toMatchObject({ bonus_percent: 20, expires_at: new Date(clock.nowMs() + 30 * 60_000).toISOString() });
    expect(mail).toHaveLength(1);
    const customer = await context.services.customers.get(buyer.customerId);
    expect(mail[0]!.to).toBe(customer.email);
    const code = /SD-[A-Za-z0-9]+/.exec(mail[0]!.text)![0];
    expect((await post(buyer.systemToken, '/api/v1/wallet/topupemail-session-discount')).statusCode).toBe(409);
    expect(mail).toHaveLength(1);
    expect(await validate(other.systemToken, code)).toEqual({ valid: false, reason: 'unknown' });
    expect(await validate(buyer.systemToken, code)).toMatchObject({ valid: true, bonus_percent: 20 });
    clock.advance(30 * 60_000);
    expect(await validate(buyer.systemToken, code)).toEqual({ valid: false, reason: 'expired' });
    const next = await post(buyer.systemToken, '/api/v1/wallet/topupemail-session-discount');
    expect(next.statusCode).toBe(201);
    const nextCode = /SD-[A-Za-z0-9]+/.exec(mail[1]!.text)![0];
    const paid = await payWith(buyer.systemToken, nextCode);
    expect(paid.json()).toMatchObject({ credited: true, payment: { credit: { micros: 12_000_000 } } });
    // Used: no longer active, so another can be issued.
    expect((await post(buyer.systemToken, '/api/v1/wallet/topupemail-session-discount')).statusCode).toBe(201);
  });

  it('purchase preferences: defaults, save, unknown fields and packs refused', async () => {
    const buyer = await newCustomer(context);
    const get = async () =>
      (await context.app.inject({ method: 'GET', url: '/api/v1/purchase-preferences', headers: bearer(buyer.systemToken) })).json();
    const put = (payload: Record<string, unknown>) =>
      context.app.inject({ method: 'PUT', url: '/api/v1/purchase-preferences', headers: bearer(buyer.systemToken), payload });
    expect(await get()).toEqual({ default_pack_id: null, payment_method: null, pay_currency: null, display_currency: 'USD' });
    const saved = { default_pack_id: 'pack-25', payment_method: 'crypto', pay_currency: 'btc', display_currency: 'EUR' };
    expect((await put(saved)).statusCode).toBe(200);
    expect(await get()).toEqual(saved);
    expect((await put({ ...saved, default_pack_id: 'nope' })).statusCode).toBe(422);
    expect((await put({ ...saved, extra: 1 })).statusCode).toBe(422);
    expect((await put({ ...saved, display_currency: 'euro' })).statusCode).toBe(422);
    expect(await get()).toEqual(saved);
  });
});
