/**
 * The daily check-in: one claim per UTC day, its reward read from the configured streak table (the reward of the
 * highest row whose day the streak has reached), a streak that continues when yesterday was claimed, and raffle
 * entries for each claim.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import type { PromotionsConfig } from '../config/sections/payments.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import { moneyJson, type MoneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { grantOnce } from './grants.js';
import type { Raffles } from './raffle.js';
import { notOffered } from './not-offered.js';

const DAY_MS = 24 * 3600_000;
const utcDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);
const startOfNextDay = (nowMs: number): string => new Date((Math.floor(nowMs / DAY_MS) + 1) * DAY_MS).toISOString();

export interface CheckinStatus {
  enabled: boolean;
  day: string;
  claimed_today: boolean;
  streak: number;
  next_reward: MoneyJson;
  next_claim_at: string;
  rewards: { day: number; reward: MoneyJson }[];
}

export interface CheckinClaim {
  claimed: true;
  day: string;
  streak: number;
  reward: MoneyJson;
}

export interface CheckinDeps {
  db: Kysely<Database>;
  wallet: Wallet;
  clock: Clock;
  raffle: Raffles;
  config: Pick<PromotionsConfig, 'checkin' | 'raffle'>;
}

export class DailyCheckin {
  constructor(private readonly deps: CheckinDeps) {}

  async status(customerId: number): Promise<CheckinStatus> {
    const { checkin } = this.deps.config;
    const nowMs = this.deps.clock.nowMs();
    const today = utcDay(nowMs);
    const todayStreak = await this.streakOn(this.deps.db, customerId, today);
    const yesterdayStreak = await this.streakOn(this.deps.db, customerId, utcDay(nowMs - DAY_MS));
    return {
      enabled: checkin.enabled,
      day: today,
      claimed_today: todayStreak > 0,
      streak: todayStreak || yesterdayStreak,
      next_reward: moneyJson(this.rewardFor(todayStreak > 0 ? todayStreak + 1 : yesterdayStreak + 1)),
      next_claim_at: todayStreak > 0 ? startOfNextDay(nowMs) : new Date(nowMs).toISOString(),
      rewards: checkin.rewards.map((row) => ({ day: row.day, reward: moneyJson(row.rewardMicros) })),
    };
  }

  /** Today's reward, once per UTC day (409 when already claimed); the claim also earns raffle entries. */
  async claim(customerId: number): Promise<CheckinClaim> {
    if (!this.deps.config.checkin.enabled) throw notOffered('The daily check-in');
    const nowMs = this.deps.clock.nowMs();
    const today = utcDay(nowMs);
    const result = await this.deps.db.transaction().execute(async (trx) => {
      const streak = (await this.streakOn(trx, customerId, utcDay(nowMs - DAY_MS))) + 1;
      const reward = this.rewardFor(streak);
      const granted = await grantOnce(trx, this.deps.wallet, {
        customerId,
        promotion: 'checkin',
        grantKey: today,
        amountMicros: reward,
        details: { streak },
        nowMs,
      });
      if (granted) {
        const entries = this.deps.config.raffle.entriesPerCheckin;
        await this.deps.raffle.addEntries(trx, customerId, `checkin:${today}:${customerId}`, entries, nowMs);
      }
      return { granted, streak, reward };
    });
    if (!result.granted) {
      throw new AppError('CONFLICT', "Today's check-in was already claimed", { details: { next_claim_at: startOfNextDay(nowMs) } });
    }
    return { claimed: true, day: today, streak: result.streak, reward: moneyJson(result.reward) };
  }

  private rewardFor(streak: number): number {
    const table = [...this.deps.config.checkin.rewards].sort((a, b) => a.day - b.day);
    let reward = table[0]!.rewardMicros;
    for (const row of table) if (row.day <= streak) reward = row.rewardMicros;
    return reward;
  }

  /** The streak recorded with the claim of `day`; 0 when that day was not claimed. */
  private async streakOn(db: Kysely<Database> | Transaction<Database>, customerId: number, day: string): Promise<number> {
    const row = await db
      .selectFrom('promotion_grants')
      .select('details_json')
      .where('customer_id', '=', customerId)
      .where('promotion', '=', 'checkin')
      .where('grant_key', '=', day)
      .executeTakeFirst();
    return row ? Number((JSON.parse(row.details_json ?? '{}') as { streak?: number }).streak ?? 1) : 0;
  }
}
