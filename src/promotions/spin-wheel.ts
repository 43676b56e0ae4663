/** The spin wheel: one entry per customer ever, the prize drawn on the server with the CSPRNG by the configured weights. */
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import type { PromotionsConfig } from '../config/sections/payments.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import { moneyJson, type MoneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { grantOnce } from './grants.js';
import { notOffered } from './not-offered.js';

export interface SpinWheelStatus {
  enabled: boolean;
  entries_left: 0 | 1;
  /** The recorded spin (its prize id and label, amount and time); null before the spin. */
  result: (Record<string, unknown> & { amount: MoneyJson; spun_at: string }) | null;
  prizes: { id: string; label: string; amount: MoneyJson; probability: number }[];
}

export interface SpinResult {
  prize: { id: string; label: string };
  amount: MoneyJson;
  entries_left: 0;
}

export interface SpinWheelDeps {
  db: Kysely<Database>;
  wallet: Wallet;
  clock: Clock;
  config: Pick<PromotionsConfig, 'spinWheel'>;
}

export class SpinWheel {
  constructor(private readonly deps: SpinWheelDeps) {}

  async status(customerId: number): Promise<SpinWheelStatus> {
    const { spinWheel } = this.deps.config;
    const row = await this.deps.db
      .selectFrom('promotion_grants')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('promotion', '=', 'spin')
      .where('grant_key', '=', 'once')
      .executeTakeFirst();
    const total = this.weightTotal();
    return {
      enabled: spinWheel.enabled,
      entries_left: row ? 0 : 1,
      result: row
        ? {
            ...(JSON.parse(row.details_json ?? '{}') as Record<string, unknown>),
            amount: moneyJson(Number(row.amount_micros)),
            spun_at: new Date(Number(row.created_at)).toISOString(),
          }
        : null,
      prizes: spinWheel.prizes.map((prize) => ({
        id: prize.id,
        label: prize.label,
        amount: moneyJson(prize.amountMicros),
        probability: prize.weight / total,
      })),
    };
  }

  /** Uses the one entry (409 when used): drawn on the server, recorded and credited in one transaction. */
  async spin(customerId: number): Promise<SpinResult> {
    const { spinWheel } = this.deps.config;
    if (!spinWheel.enabled) throw notOffered('The spin wheel');
    let ticket = randomInt(this.weightTotal());
    const prize = spinWheel.prizes.find((candidate) => (ticket -= candidate.weight) < 0)!;
    const nowMs = this.deps.clock.nowMs();
    const granted = await this.deps.db.transaction().execute((trx) =>
      grantOnce(trx, this.deps.wallet, {
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
  }

  private weightTotal(): number {
    return this.deps.config.spinWheel.prizes.reduce((sum, prize) => sum + prize.weight, 0);
  }
}
