/**
 * Purchases paid from the cash wallet: a token-wallet package (cash → revenue, top-ups → token wallet) and an
 * Unlimited Coding plan (cash → revenue, the subscription starting now, or when the same plan's current period
 * ends). Each runs once per Idempotency-Key, its ledger transfers, purchase row and stored answer in one
 * transaction; short cash is a 402 and changes nothing.
 */
import type { Transaction } from 'kysely';
import { IdempotencyStore, requestHash } from '../idempotency.js';
import type { UnlimitedPlans } from '../unlimited.js';
import type { Wallet } from '../wallet.js';
import type { AppConfig } from '../../config/load-config.js';
import type { Clock } from '../../kernel/clock.js';
import { randomBase62 } from '../../kernel/ids.js';
import { moneyJson } from '../../kernel/money.js';
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { packOf } from './card.js';
import { newPaymentRow } from './ledger-effects.js';
import { paymentJsonOf } from './payment-json.js';

const DAY_MS = 24 * 3600_000;

export class CashPurchases {
  private readonly idempotency: IdempotencyStore;

  constructor(
    private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly wallet: Wallet,
    private readonly unlimited: UnlimitedPlans,
  ) {
    this.idempotency = new IdempotencyStore(storage, clock, config.billing.idempotencyRetentionMs);
  }

  private async record(
    trx: Transaction<Database>,
    input: {
      customerId: number;
      packId: string;
      amountMicros: number;
      creditMicros: number;
      wallet: 'token' | 'cash';
      details: Record<string, unknown>;
    },
  ) {
    const nowMs = this.clock.nowMs();
    return trx
      .insertInto('payments')
      .values(
        newPaymentRow(
          {
            public_id: `pay_${randomBase62(20)}`,
            customer_id: input.customerId,
            method: 'cash',
            wallet: input.wallet,
            pack_id: input.packId,
            amount_micros: input.amountMicros,
            credit_micros: input.creditMicros,
            status: 'paid',
            details_json: JSON.stringify(input.details),
            credited_at: nowMs,
          },
          nowMs,
        ),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async tokenPurchase(customerId: number, packId: string, idempotencyKey: string) {
    const pack = packOf(this.config, packId);
    const credit = pack.creditMicros ?? pack.priceMicros;
    return this.idempotency.run(
      `cash-purchase:${customerId}`,
      idempotencyKey,
      requestHash('cash.token-purchase', { pack_id: packId }),
      async (trx) => {
        const reference = `idempotency:${idempotencyKey}`;
        await this.wallet.creditIn(trx, {
          customerId,
          wallet: 'cash',
          amountMicros: -pack.priceMicros,
          system: 'revenue',
          kind: 'cash_purchase',
          memo: pack.id,
          reference,
        });
        await this.wallet.creditIn(trx, {
          customerId,
          wallet: 'token',
          amountMicros: credit,
          system: 'top_ups',
          kind: 'cash_purchase',
          memo: pack.id,
          reference,
        });
        const row = await this.record(trx, {
          customerId,
          packId: pack.id,
          amountMicros: pack.priceMicros,
          creditMicros: credit,
          wallet: 'token',
          details: { paid_from: 'cash' },
        });
        return { status: 200, body: { purchase: paymentJsonOf(row), paid: moneyJson(pack.priceMicros), credited: moneyJson(credit) } };
      },
    );
  }

  async unlimitedPurchase(customerId: number, planId: string, idempotencyKey: string) {
    const plan = this.unlimited.plan(planId);
    const result = await this.idempotency.run(
      `cash-purchase:${customerId}`,
      idempotencyKey,
      requestHash('cash.unlimited-purchase', { plan_id: planId }),
      async (trx) => {
        const nowMs = this.clock.nowMs();
        await this.wallet.creditIn(trx, {
          customerId,
          wallet: 'cash',
          amountMicros: -plan.priceMicros,
          system: 'revenue',
          kind: 'unlimited_purchase',
          memo: plan.id,
          reference: `idempotency:${idempotencyKey}`,
        });
        // Read in this transaction: the plan service's reader uses another connection.
        const current = await trx
          .selectFrom('unlimited_subscriptions')
          .select(['ends_at'])
          .where('customer_id', '=', customerId)
          .where('plan_id', '=', plan.id)
          .where('starts_at', '<=', nowMs)
          .where('ends_at', '>', nowMs)
          .orderBy('ends_at', 'desc')
          .executeTakeFirst();
        const startsAt = current ? Number(current.ends_at) : nowMs;
        const endsAt = startsAt + plan.durationDays * DAY_MS;
        await trx
          .insertInto('unlimited_subscriptions')
          .values({ customer_id: customerId, plan_id: plan.id, starts_at: startsAt, ends_at: endsAt, created_at: nowMs })
          .execute();
        const row = await this.record(trx, {
          customerId,
          packId: `unlimited:${plan.id}`,
          amountMicros: plan.priceMicros,
          creditMicros: 0,
          wallet: 'cash',
          details: { plan: plan.id, starts_at: startsAt, ends_at: endsAt },
        });
        return {
          status: 200,
          body: {
            purchase: paymentJsonOf(row),
            plan: plan.id,
            paid: moneyJson(plan.priceMicros),
            starts_at: new Date(startsAt).toISOString(),
            ends_at: new Date(endsAt).toISOString(),
          },
        };
      },
    );
    this.unlimited.forget(customerId);
    return result;
  }
}
