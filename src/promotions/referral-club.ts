/** The referral club page: the customer's code and link, club level by paid referrals, and the cash-wallet earnings. */
import type { Kysely } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import type { PromotionsConfig } from '../config/sections/payments.js';
import type { Clock } from '../kernel/clock.js';
import { moneyJson, type MoneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { referralCodeOf } from './referral.js';

export interface ReferralStatus {
  referral_code: string;
  referral_link: string;
  club_level: string | null;
  levels: { name: string; min_paid_referrals: number }[];
  referred: { total: number; paid: number };
  share_percent: number;
  earnings: { total: MoneyJson; clawed_back: MoneyJson; net: MoneyJson };
  cash_wallet: { balance: MoneyJson; available: MoneyJson };
}

export interface ReferralClubDeps {
  db: Kysely<Database>;
  wallet: Wallet;
  clock: Clock;
  config: Pick<PromotionsConfig, 'referral'>;
  /** The public share link of a referral code. */
  shareLink: (code: string) => string;
}

export class ReferralClub {
  constructor(private readonly deps: ReferralClubDeps) {}

  async status(customerId: number): Promise<ReferralStatus> {
    const { db, config } = this.deps;
    const code = await referralCodeOf(db, customerId, this.deps.clock.nowMs());
    const referred = await db
      .selectFrom('referrals')
      .select('referred_customer_id')
      .where('referrer_customer_id', '=', customerId)
      .execute();
    const paid = await this.paidReferrals(customerId);
    const earned = await db
      .selectFrom('referral_earnings')
      .select(['amount_micros', 'clawed_micros'])
      .where('referrer_customer_id', '=', customerId)
      .execute();
    const total = earned.reduce((sum, row) => sum + Number(row.amount_micros), 0);
    const clawed = earned.reduce((sum, row) => sum + Number(row.clawed_micros), 0);
    const levels = [...config.referral.levels].sort((a, b) => a.minPaidReferrals - b.minPaidReferrals);
    const level = levels.filter((candidate) => candidate.minPaidReferrals <= paid).at(-1)?.name ?? null;
    const balances = await this.deps.wallet.balances(customerId);
    return {
      referral_code: code,
      referral_link: this.deps.shareLink(code),
      club_level: level,
      levels: levels.map((row) => ({ name: row.name, min_paid_referrals: row.minPaidReferrals })),
      referred: { total: referred.length, paid },
      share_percent: config.referral.shareBasisPoints / 100,
      earnings: { total: moneyJson(total), clawed_back: moneyJson(clawed), net: moneyJson(total - clawed) },
      cash_wallet: { balance: moneyJson(balances.cash.balance), available: moneyJson(balances.cash.balance - balances.cash.held) },
    };
  }

  /** Referred customers with at least one paid card or crypto top-up. */
  private async paidReferrals(customerId: number): Promise<number> {
    const rows = await this.deps.db
      .selectFrom('referrals as r')
      .innerJoin('payments as p', 'p.customer_id', 'r.referred_customer_id')
      .select('r.referred_customer_id')
      .distinct()
      .where('r.referrer_customer_id', '=', customerId)
      .where('p.status', '=', 'paid')
      .where('p.method', 'in', ['card', 'crypto'])
      .execute();
    return rows.length;
  }
}
