import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { drawWinners } from '../../src/promotions/raffle.js';
import { startCardProcessor, type CardProcessor } from '../fakes/card-processor.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { cardConfig, deliver, expectInvariants, newCustomer as newBuyer, paymentsContext, walletOf } from '../payments/support.js';
import { verifyEmail } from '../chassis/support.js';

const DAY_MS = 24 * 3600_000;

describe('promotions', () => {
  let context: TestContext;
  let clock: FakeClock;
  let processor: CardProcessor;
  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 2, 10, 12));
    processor = await startCardProcessor();
    context = await paymentsContext({
      clock,
      config: {
        payments: { card: cardConfig(processor) },
        // These tests are about the grants and their races: the human check (its own tests in test/accounts and
        // the farming test in test/promotions/free-credit.test.ts) is off for claims here; email verification is on.
        accounts: { humanCheck: { requiredFor: ['register'], cost: 1, maxCounter: 64 } },
        // Promotions are off unless configured: each one these tests exercise is switched on here.
        promotions: {
          checkin: { enabled: true },
          spinWheel: { enabled: true },
          shareCredit: { enabled: true },
          referral: { shareBasisPoints: 1_000 },
          raffle: { enabled: true, prizeMicros: 25_000_000, winners: 2, periodDays: 7, entriesPerCheckin: 1, entriesPerPaidTopUp: 5 },
        },
      },
    });
  });
  afterEach(async () => {
    await expectInvariants(context);
    await context.close();
    await processor.close();
  });

  const call = (method: 'GET' | 'POST', url: string, token: string, remoteAddress = '10.0.0.1') =>
    context.app.inject({ method, url, headers: bearer(token), remoteAddress, ...(method === 'POST' ? { payload: {} } : {}) });
  /** A customer whose email is verified (through the mailed link's route), as free credit needs. */
  const newCustomer = async (ctx: TestContext) => {
    const customer = await newBuyer(ctx);
    await verifyEmail(ctx, customer);
    return customer;
  };
  const balance = async (customerId: number) => (await walletOf(context, customerId)).balanceMicros;
  const grants = async (promotion: string) =>
    context.storage.db.selectFrom('promotion_grants').selectAll().where('promotion', '=', promotion).execute();

  it('daily check-in: once per UTC day, streak rewards from config, the day boundary at UTC midnight, a missed day resets', async () => {
    const buyer = await newCustomer(context);
    const first = await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ day: '2026-03-10', streak: 1, reward: { micros: 100_000 } });
    const again = await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail ?? again.json()).toBeDefined();
    expect((await call('GET', '/api/v1/daily-checkin', buyer.systemToken)).json()).toMatchObject({
      claimed_today: true,
      streak: 1,
      next_reward: { micros: 150_000 },
      next_claim_at: '2026-03-11T00:00:00.000Z',
    });
    // One millisecond before UTC midnight is still the same day.
    clock.set(Date.UTC(2026, 2, 10, 23, 59, 59, 999));
    expect((await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken)).statusCode).toBe(409);
    clock.advance(1);
    expect((await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken)).json()).toMatchObject({
      day: '2026-03-11',
      streak: 2,
      reward: { micros: 150_000 },
    });
    clock.advance(DAY_MS);
    expect((await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken)).json()).toMatchObject({
      streak: 3,
      reward: { micros: 200_000 },
    });
    // A missed day (the 13th) resets the streak on the 14th.
    clock.advance(2 * DAY_MS);
    expect((await call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken)).json()).toMatchObject({
      day: '2026-03-14',
      streak: 1,
      reward: { micros: 100_000 },
    });
    // The week's raffle (drawn by itself at Thursday the 12th, 00:00 UTC) had this one entrant: the prize is theirs too.
    await context.services.jobs.idle();
    expect(await grants('raffle')).toHaveLength(1);
    expect(await balance(buyer.customerId)).toBe(100_000 + 150_000 + 200_000 + 100_000 + 25_000_000);
  });

  it('100 concurrent check-in claims grant exactly once', async () => {
    const buyer = await newCustomer(context);
    const responses = await Promise.all(Array.from({ length: 100 }, () => call('POST', '/api/v1/daily-checkin/claim', buyer.systemToken)));
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(99);
    expect(await grants('checkin')).toHaveLength(1);
    expect(await balance(buyer.customerId)).toBe(100_000);
  });

  it('spin wheel: one entry ever, prize from the table credited with it; 100 concurrent spins → 1 grant', async () => {
    const buyer = await newCustomer(context);
    const before = (await call('GET', '/api/v1/spin-wheel', buyer.systemToken)).json();
    expect(before).toMatchObject({ entries_left: 1, result: null });
    expect(before.prizes.map((prize: { probability: number }) => prize.probability).reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(
      1,
    );
    const responses = await Promise.all(Array.from({ length: 100 }, () => call('POST', '/api/v1/spin-wheel/spin', buyer.systemToken)));
    const won = responses.filter((response) => response.statusCode === 200);
    expect(won).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(99);
    const prize = won[0]!.json();
    expect(['small', 'medium', 'large']).toContain(prize.prize.id);
    expect(await balance(buyer.customerId)).toBe(prize.amount.micros);
    expect((await call('GET', '/api/v1/spin-wheel', buyer.systemToken)).json()).toMatchObject({
      entries_left: 0,
      result: { prize: prize.prize.id, amount: prize.amount },
    });
    expect(await grants('spin')).toHaveLength(1);
  });

  it('share credit: refused until the link is opened by someone else, then $10 once (100 concurrent claims → 1 grant)', async () => {
    const buyer = await newCustomer(context);
    const status = (await call('GET', '/api/v1/share-credit', buyer.systemToken, '10.0.0.1')).json();
    expect(status).toMatchObject({ amount: { micros: 10_000_000 }, claimed: false, claimable: false, visits_by_others: 0 });
    const link = new URL(status.share_link);
    const refused = await call('POST', '/api/v1/share-credit/claim', buyer.systemToken, '10.0.0.1');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ missing: 'share_link_visit' });
    // The customer opening their own link (same address) does not count.
    const own = await context.app.inject({ method: 'GET', url: link.pathname, remoteAddress: '10.0.0.1', headers: { 'user-agent': 'me' } });
    expect(own.statusCode).toBe(302);
    expect(own.headers.location).toContain(`ref=${link.pathname.split('/').pop()}`);
    expect((await call('POST', '/api/v1/share-credit/claim', buyer.systemToken, '10.0.0.1')).statusCode).toBe(409);
    // A visitor from elsewhere does.
    await context.app.inject({ method: 'GET', url: link.pathname, remoteAddress: '203.0.113.7', headers: { 'user-agent': 'friend' } });
    expect((await call('GET', '/api/v1/share-credit', buyer.systemToken)).json()).toMatchObject({ visits_by_others: 1, claimable: true });
    const responses = await Promise.all(Array.from({ length: 100 }, () => call('POST', '/api/v1/share-credit/claim', buyer.systemToken)));
    expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(99);
    expect(await balance(buyer.customerId)).toBe(10_000_000);
    expect((await call('GET', '/api/v1/share-credit', buyer.systemToken)).json()).toMatchObject({ claimed: true, claimable: false });
    // Unknown codes redirect to the site without recording anything.
    const unknown = await context.app.inject({ method: 'GET', url: '/r/nosuchcode1', remoteAddress: '203.0.113.8' });
    expect(unknown.statusCode).toBe(302);
    expect(unknown.headers.location).not.toContain('ref=');
  });

  it('referral: one code per customer, attribution once and never to oneself, a share of paid top-ups to the cash wallet, clawed back on refund', async () => {
    const referrer = await newCustomer(context);
    const status = (await call('GET', '/api/v1/referral', referrer.systemToken)).json();
    expect(status).toMatchObject({ club_level: 'member', referred: { total: 0, paid: 0 }, share_percent: 10 });
    expect((await call('GET', '/api/v1/referral', referrer.systemToken)).json().referral_code).toBe(status.referral_code);
    const friend = await newCustomer(context);
    expect(await context.services.promotions.attributeReferral(referrer.customerId, status.referral_code)).toBeNull();
    expect(await context.services.promotions.attributeReferral(friend.customerId, 'unknown0000')).toBeNull();
    expect(await context.services.promotions.attributeReferral(friend.customerId, status.referral_code)).toBe(referrer.customerId);
    expect(await context.services.promotions.attributeReferral(friend.customerId, status.referral_code)).toBeNull();

    const checkout = await context.app.inject({
      method: 'POST',
      url: '/api/v1/wallet/card/checkout',
      headers: bearer(friend.systemToken),
      payload: { pack_id: 'pack-25' },
    });
    const sessionId = checkout.json().session_id as string;
    const session = processor.pay(sessionId);
    const send = (event: unknown) => {
      const raw = JSON.stringify(event);
      return deliver(context, raw, processor.signature(raw, { timestampSeconds: Math.floor(clock.nowMs() / 1000) }));
    };
    expect((await send(processor.event('checkout.session.completed', session))).statusCode).toBe(200);
    expect(await walletOf(context, referrer.customerId)).toMatchObject({ cashBalanceMicros: 2_500_000 });
    expect((await call('GET', '/api/v1/referral', referrer.systemToken)).json()).toMatchObject({
      referred: { total: 1, paid: 1 },
      earnings: { total: { micros: 2_500_000 }, net: { micros: 2_500_000 } },
    });
    // Duplicate delivery: nothing more.
    await send(processor.event('checkout.session.async_payment_succeeded', session));
    expect(await walletOf(context, referrer.customerId)).toMatchObject({ cashBalanceMicros: 2_500_000 });
    await send(processor.event('charge.refunded', processor.refundCharge(sessionId, 2500)));
    expect(await walletOf(context, referrer.customerId)).toMatchObject({ cashBalanceMicros: 0 });
    expect((await call('GET', '/api/v1/referral', referrer.systemToken)).json()).toMatchObject({
      earnings: { clawed_back: { micros: 2_500_000 }, net: { micros: 0 } },
    });
  });

  it('raffle: seed hash published at opening, entries from check-ins, a provably fair draw credited once', async () => {
    const players = await Promise.all([newCustomer(context), newCustomer(context), newCustomer(context)]);
    const opening = (await call('GET', '/api/v1/raffle', players[0]!.systemToken)).json();
    expect(opening.current).toMatchObject({ your_entries: 0, total_entries: 0, prize_micros: 25_000_000, winners: 2 });
    expect(opening.current.seed_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const player of players) expect((await call('POST', '/api/v1/daily-checkin/claim', player.systemToken)).statusCode).toBe(200);
    clock.advance(DAY_MS);
    expect((await call('POST', '/api/v1/daily-checkin/claim', players[0]!.systemToken)).statusCode).toBe(200);
    const mid = (await call('GET', '/api/v1/raffle', players[0]!.systemToken)).json();
    expect(mid.current).toMatchObject({
      raffle_id: opening.current.raffle_id,
      your_entries: 2,
      total_entries: 4,
      entrants: 3,
      seed_hash: opening.current.seed_hash,
    });
    expect(mid.past_draws).toEqual([]);
    const balancesBefore = await Promise.all(players.map((player) => balance(player.customerId)));

    // At the draw time the job runner draws; nobody opens the raffle for it.
    expect(await grants('raffle')).toHaveLength(0);
    clock.set(Date.parse(opening.current.draws_at));
    await context.services.jobs.idle();
    expect(await grants('raffle')).toHaveLength(2);
    const views = await Promise.all(
      players.flatMap((player) => [call('GET', '/api/v1/raffle', player.systemToken), call('GET', '/api/v1/raffle', player.systemToken)]),
    );
    const draw = views[0]!.json().past_draws[0];
    expect(draw.raffle_id).toBe(opening.current.raffle_id);
    expect(createHash('sha256').update(draw.seed).digest('hex')).toBe(opening.current.seed_hash);
    expect(draw.winners).toHaveLength(2);
    expect(drawWinners(draw.seed, draw.entries, 2)).toEqual(draw.winners);
    expect(await grants('raffle')).toHaveLength(2);
    const balancesAfter = await Promise.all(players.map((player) => balance(player.customerId)));
    const gained = balancesAfter.map((after, index) => after - balancesBefore[index]!);
    expect(gained.filter((amount) => amount === 25_000_000)).toHaveLength(2);
    expect(gained.filter((amount) => amount === 0)).toHaveLength(1);
    const won = views.filter((_view, index) => index % 2 === 0).map((view) => view.json().past_draws[0].you_won as boolean);
    expect(won.filter(Boolean)).toHaveLength(2);
    expect(views[0]!.json().current.raffle_id).not.toBe(opening.current.raffle_id);
  });
});
