/**
 * Promotions, each grant a ledger transfer from the promotions account recorded with a key that makes it happen
 * at most once: the daily check-in (once per UTC day, streak rewards from config), the spin wheel (one entry per
 * customer ever, prize drawn with a CSPRNG), the one-time share credit (after the customer's share link was
 * opened by someone else), referral codes and earnings, and the raffle.
 */
import { createHmac, randomInt } from 'node:crypto';
import { AppError } from '../kernel/errors.js';
import { moneyJson } from '../kernel/money.js';
import type { BillingServices } from '../billing/index.js';
import type { PaymentServices } from '../billing/payments/index.js';
import { addressPrefix } from '../accounts/address-prefix.js';
import { AdNetwork } from './ad-network.js';
import { grantOnce } from './grants.js';
import { Raffles } from './raffle.js';
import { attributeReferral, customerOfCode, ReferralEarnings, referralCodeOf } from './referral.js';
import type { BaseDeps } from '../storage/base-deps.js';
import type { IdentityDeps } from '../accounts/deps.js';

/** What this domain takes from the composition root. */
export type PromotionDeps = BaseDeps & Pick<IdentityDeps, 'customers'>;

export { attributeReferral };

const DAY_MS = 24 * 3600_000;
const utcDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

export interface VisitInfo {
  address: string;
  userAgent: string;
  /** The browser's visitor cookie, when it has one. */
  browser?: string;
}

export interface PromotionServices {
  raffle: Raffles;
  adNetwork: AdNetwork;
  checkinStatus(customerId: number): Promise<Record<string, unknown>>;
  claimCheckin(customerId: number): Promise<Record<string, unknown>>;
  spinStatus(customerId: number): Promise<Record<string, unknown>>;
  spin(customerId: number): Promise<Record<string, unknown>>;
  shareCreditStatus(customerId: number, caller: VisitInfo): Promise<Record<string, unknown>>;
  claimShareCredit(customerId: number, caller: VisitInfo): Promise<Record<string, unknown>>;
  /** Records a visit of a share link; returns where to send the visitor. */
  recordShareVisit(code: string, visitor: VisitInfo): Promise<string>;
  referralStatus(customerId: number): Promise<Record<string, unknown>>;
  /** Sign-up attribution: the new customer came with `referralCode` (unknown, own or repeated codes change nothing). */
  attributeReferral(customerId: number, referralCode: string): Promise<number | null>;
  raffleStatus(customerId: number): Promise<Record<string, unknown>>;
}

export function createPromotionServices(
  deps: PromotionDeps,
  others: { billing: BillingServices; payments: PaymentServices },
): PromotionServices {
  const { config, storage, clock } = deps;
  const db = storage.db;
  const wallet = others.billing.wallet;
  const promotions = config.promotions;
  const raffle = new Raffles(db, wallet, () => promotions.raffle);
  const earnings = new ReferralEarnings(
    wallet,
    () => promotions.referral.shareBasisPoints,
    () => clock.nowMs(),
  );
  others.payments.onPaid.push((trx, payment) => earnings.onPaid(trx, payment));
  others.payments.onPaid.push((trx, payment) =>
    payment.method === 'card' || payment.method === 'crypto'
      ? raffle.addEntries(trx, payment.customer_id, `payment:${payment.public_id}`, promotions.raffle.entriesPerPaidTopUp, clock.nowMs())
      : Promise.resolve(),
  );
  others.payments.onRefund.push((trx, payment) => earnings.onRefund(trx, payment));

  const keyed = (label: string, value: string) => createHmac('sha256', config.secret).update(`${label}\n${value}`).digest('hex');
  // Share-link visits count per network (/24, /64) and per browser (its visitor cookie), never per exact address:
  // the owner's own networks and browser (seen when they look at or claim the credit) are not "someone else".
  const networkHash = (address: string) => keyed('address', addressPrefix(address));
  const browserHash = (browser: string) => keyed('browser', browser);
  const rememberAddress = async (customerId: number, caller: VisitInfo) => {
    const hashes = [networkHash(caller.address), ...(caller.browser === undefined ? [] : [browserHash(caller.browser)])];
    for (const hash of hashes) {
      await db
        .insertInto('customer_addresses')
        .values({ customer_id: customerId, address_hash: hash, created_at: clock.nowMs() })
        .onConflict((conflict) => conflict.columns(['customer_id', 'address_hash']).doNothing())
        .execute();
    }
  };
  const shareLink = (code: string) => `${config.publicBaseUrl.replace(/\/+$/, '')}/r/${code}`;

  const rewardFor = (streak: number): number => {
    const table = [...promotions.checkin.rewards].sort((a, b) => a.day - b.day);
    let reward = table[0]!.rewardMicros;
    for (const row of table) if (row.day <= streak) reward = row.rewardMicros;
    return reward;
  };
  const streakOn = async (customerId: number, day: string): Promise<number> => {
    const row = await db
      .selectFrom('promotion_grants')
      .select('details_json')
      .where('customer_id', '=', customerId)
      .where('promotion', '=', 'checkin')
      .where('grant_key', '=', day)
      .executeTakeFirst();
    return row ? Number((JSON.parse(row.details_json ?? '{}') as { streak?: number }).streak ?? 1) : 0;
  };
  const disabled = (what: string) => new AppError('NOT_FOUND', `${what} is not offered`);
  const weightTotal = () => promotions.spinWheel.prizes.reduce((sum, prize) => sum + prize.weight, 0);

  /** Distinct networks that opened the link from a browser that is not the owner's, outside the owner's networks. */
  const visitsByOthers = async (customerId: number, code: string): Promise<number> => {
    const own = db.selectFrom('customer_addresses').select('address_hash').where('customer_id', '=', customerId);
    const rows = await db
      .selectFrom('share_visits')
      .select('address_hash')
      .distinct()
      .where('code', '=', code)
      .where('address_hash', 'not in', own)
      .where('visitor_hash', 'not in', own)
      .execute();
    return rows.length;
  };

  return {
    raffle,
    adNetwork: new AdNetwork(db, config.adNetwork, clock),

    async checkinStatus(customerId) {
      const nowMs = clock.nowMs();
      const today = utcDay(nowMs);
      const todayStreak = await streakOn(customerId, today);
      const yesterdayStreak = await streakOn(customerId, utcDay(nowMs - DAY_MS));
      const streak = todayStreak || yesterdayStreak;
      return {
        enabled: promotions.checkin.enabled,
        day: today,
        claimed_today: todayStreak > 0,
        streak,
        next_reward: moneyJson(rewardFor(todayStreak > 0 ? todayStreak + 1 : yesterdayStreak + 1)),
        next_claim_at: new Date(todayStreak > 0 ? (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS : nowMs).toISOString(),
        rewards: promotions.checkin.rewards.map((row) => ({ day: row.day, reward: moneyJson(row.rewardMicros) })),
      };
    },

    async claimCheckin(customerId) {
      if (!promotions.checkin.enabled) throw disabled('The daily check-in');
      const nowMs = clock.nowMs();
      const today = utcDay(nowMs);
      const result = await db.transaction().execute(async (trx) => {
        const previous = await trx
          .selectFrom('promotion_grants')
          .select('details_json')
          .where('customer_id', '=', customerId)
          .where('promotion', '=', 'checkin')
          .where('grant_key', '=', utcDay(nowMs - DAY_MS))
          .executeTakeFirst();
        const streak = previous ? Number((JSON.parse(previous.details_json ?? '{}') as { streak?: number }).streak ?? 1) + 1 : 1;
        const reward = rewardFor(streak);
        const granted = await grantOnce(trx, wallet, {
          customerId,
          promotion: 'checkin',
          grantKey: today,
          amountMicros: reward,
          details: { streak },
          nowMs,
        });
        if (granted) await raffle.addEntries(trx, customerId, `checkin:${today}:${customerId}`, promotions.raffle.entriesPerCheckin, nowMs);
        return { granted, streak, reward };
      });
      if (!result.granted) {
        throw new AppError('CONFLICT', "Today's check-in was already claimed", {
          details: { next_claim_at: new Date((Math.floor(nowMs / DAY_MS) + 1) * DAY_MS).toISOString() },
        });
      }
      return { claimed: true, day: today, streak: result.streak, reward: moneyJson(result.reward) };
    },

    async spinStatus(customerId) {
      const row = await db
        .selectFrom('promotion_grants')
        .selectAll()
        .where('customer_id', '=', customerId)
        .where('promotion', '=', 'spin')
        .where('grant_key', '=', 'once')
        .executeTakeFirst();
      const total = weightTotal();
      return {
        enabled: promotions.spinWheel.enabled,
        entries_left: row ? 0 : 1,
        result: row
          ? {
              ...(JSON.parse(row.details_json ?? '{}') as object),
              amount: moneyJson(Number(row.amount_micros)),
              spun_at: new Date(Number(row.created_at)).toISOString(),
            }
          : null,
        prizes: promotions.spinWheel.prizes.map((prize) => ({
          id: prize.id,
          label: prize.label,
          amount: moneyJson(prize.amountMicros),
          probability: prize.weight / total,
        })),
      };
    },

    async spin(customerId) {
      if (!promotions.spinWheel.enabled) throw disabled('The spin wheel');
      // Drawn on the server with the CSPRNG; recorded and credited in one transaction.
      let ticket = randomInt(weightTotal());
      const prize = promotions.spinWheel.prizes.find((candidate) => (ticket -= candidate.weight) < 0)!;
      const nowMs = clock.nowMs();
      const granted = await db.transaction().execute((trx) =>
        grantOnce(trx, wallet, {
          customerId,
          promotion: 'spin',
          grantKey: 'once',
          amountMicros: prize.amountMicros,
          details: { prize: prize.id, label: prize.label },
          nowMs,
        }),
      );
      if (!granted) throw new AppError('CONFLICT', 'The spin-wheel entry was already used', { details: { entries_left: 0 } });
      return { prize: { id: prize.id, label: prize.label }, amount: moneyJson(prize.amountMicros), entries_left: 0 };
    },

    async shareCreditStatus(customerId, caller) {
      await rememberAddress(customerId, caller);
      const code = await referralCodeOf(db, customerId, clock.nowMs());
      const claimed = await db
        .selectFrom('promotion_grants')
        .select('created_at')
        .where('customer_id', '=', customerId)
        .where('promotion', '=', 'share_credit')
        .where('grant_key', '=', 'once')
        .executeTakeFirst();
      const visits = await visitsByOthers(customerId, code);
      return {
        enabled: promotions.shareCredit.enabled,
        amount: moneyJson(promotions.shareCredit.amountMicros),
        claimed: claimed !== undefined,
        claimed_at: claimed ? new Date(Number(claimed.created_at)).toISOString() : null,
        share_link: shareLink(code),
        visits_by_others: visits,
        claimable: !claimed && visits > 0 && promotions.shareCredit.enabled,
        requirement:
          'Share your link; the credit can be claimed once someone else has opened it, from another network and browser than yours.',
      };
    },

    async claimShareCredit(customerId, caller) {
      if (!promotions.shareCredit.enabled) throw disabled('The share credit');
      await rememberAddress(customerId, caller);
      const code = await referralCodeOf(db, customerId, clock.nowMs());
      const visits = await visitsByOthers(customerId, code);
      if (visits === 0) {
        throw new AppError('CONFLICT', 'Your share link has not been opened by anyone else yet', {
          details: { missing: 'share_link_visit', share_link: shareLink(code), visits_by_others: 0 },
        });
      }
      const amount = promotions.shareCredit.amountMicros;
      const granted = await db.transaction().execute((trx) =>
        grantOnce(trx, wallet, {
          customerId,
          promotion: 'share_credit',
          grantKey: 'once',
          amountMicros: amount,
          details: { visits },
          nowMs: clock.nowMs(),
        }),
      );
      if (!granted) throw new AppError('CONFLICT', 'The share credit was already claimed', { details: { missing: null, claimed: true } });
      return { claimed: true, amount: moneyJson(amount) };
    },

    async recordShareVisit(code, visitor) {
      const landing = new URL(promotions.shareCredit.landingUrl);
      const owner = await customerOfCode(db, code);
      if (owner === null) return landing.toString();
      // One row per browser (without a cookie: per network); the claim counts distinct networks.
      await db
        .insertInto('share_visits')
        .values({
          code,
          visitor_hash: visitor.browser === undefined ? networkHash(visitor.address) : browserHash(visitor.browser),
          address_hash: networkHash(visitor.address),
          created_at: clock.nowMs(),
        })
        .onConflict((conflict) => conflict.columns(['code', 'visitor_hash']).doNothing())
        .execute();
      landing.searchParams.set('ref', code);
      return landing.toString();
    },

    async referralStatus(customerId) {
      const code = await referralCodeOf(db, customerId, clock.nowMs());
      const referred = await db
        .selectFrom('referrals')
        .select('referred_customer_id')
        .where('referrer_customer_id', '=', customerId)
        .execute();
      const paid = await db
        .selectFrom('referrals as r')
        .innerJoin('payments as p', 'p.customer_id', 'r.referred_customer_id')
        .select('r.referred_customer_id')
        .distinct()
        .where('r.referrer_customer_id', '=', customerId)
        .where('p.status', '=', 'paid')
        .where('p.method', 'in', ['card', 'crypto'])
        .execute();
      const earned = await db
        .selectFrom('referral_earnings')
        .select(['amount_micros', 'clawed_micros'])
        .where('referrer_customer_id', '=', customerId)
        .execute();
      const total = earned.reduce((sum, row) => sum + Number(row.amount_micros), 0);
      const clawed = earned.reduce((sum, row) => sum + Number(row.clawed_micros), 0);
      const levels = [...promotions.referral.levels].sort((a, b) => a.minPaidReferrals - b.minPaidReferrals);
      const level = levels.filter((candidate) => candidate.minPaidReferrals <= paid.length).at(-1)?.name ?? null;
      const balances = await wallet.balances(customerId);
      return {
        referral_code: code,
        referral_link: shareLink(code),
        club_level: level,
        levels: levels.map((row) => ({ name: row.name, min_paid_referrals: row.minPaidReferrals })),
        referred: { total: referred.length, paid: paid.length },
        share_percent: promotions.referral.shareBasisPoints / 100,
        earnings: { total: moneyJson(total), clawed_back: moneyJson(clawed), net: moneyJson(total - clawed) },
        cash_wallet: { balance: moneyJson(balances.cash.balance), available: moneyJson(balances.cash.balance - balances.cash.held) },
      };
    },

    attributeReferral: (customerId, referralCode) => attributeReferral(db, customerId, referralCode, clock.nowMs()),

    raffleStatus: (customerId) => raffle.status(customerId, clock.nowMs()),
  };
}
