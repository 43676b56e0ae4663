/**
 * Top-up bonus codes and personal session discounts. A configured code has an optional expiry and total uses and
 * can be used once per customer; a session discount is a personal code mailed to the customer, valid for a few
 * minutes, one active at a time. Either adds a bonus (a percentage of the pack's credit) to a card or crypto
 * checkout; the use is recorded with the checkout, in the transaction that creates it.
 */
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppConfig } from '../../config/load-config.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { Mailer } from './ports.js';

const CODE_LOCK_SCOPE = 71_001;
const SESSION_LOCK_SCOPE = 71_002;
const lockKey = (text: string) => createHash('sha256').update(text).digest().readInt32BE(0);

export interface ResolvedDiscount {
  code: string;
  bonusPercent: number;
  kind: 'code' | 'session';
  expiresAt: number | null;
}

export type DiscountCheck =
  { valid: true; discount: ResolvedDiscount } | { valid: false; reason: 'unknown' | 'expired' | 'used_up' | 'already_used' };

export class Discounts {
  constructor(
    private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
  ) {}

  /** Whether `code` can be used by this customer now (reads through `trx` when given). */
  async check(customerId: number, rawCode: string, trx?: Transaction<Database>): Promise<DiscountCheck> {
    const db = trx ?? this.storage.db;
    const nowMs = this.clock.nowMs();
    const code = rawCode.trim();
    const configured = this.config.payments.discountCodes.find((candidate) => candidate.code.toLowerCase() === code.toLowerCase());
    if (configured) {
      const expiresAt = configured.expiresAt ? Date.parse(configured.expiresAt) : null;
      if (expiresAt !== null && nowMs >= expiresAt) return { valid: false, reason: 'expired' };
      const used = await db.selectFrom('discount_redemptions').select('customer_id').where('code', '=', configured.code).execute();
      if (used.some((row) => Number(row.customer_id) === customerId)) return { valid: false, reason: 'already_used' };
      if (configured.maxUses !== undefined && used.length >= configured.maxUses) return { valid: false, reason: 'used_up' };
      return { valid: true, discount: { code: configured.code, bonusPercent: configured.bonusPercent, kind: 'code', expiresAt } };
    }
    const personal = await db
      .selectFrom('session_discounts')
      .selectAll()
      .where('code', '=', code)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!personal) return { valid: false, reason: 'unknown' };
    if (nowMs >= Number(personal.expires_at)) return { valid: false, reason: 'expired' };
    const redeemed = await db.selectFrom('discount_redemptions').select('code').where('code', '=', personal.code).executeTakeFirst();
    if (redeemed) return { valid: false, reason: 'already_used' };
    return {
      valid: true,
      discount: {
        code: personal.code,
        bonusPercent: Number(personal.bonus_percent),
        kind: 'session',
        expiresAt: Number(personal.expires_at),
      },
    };
  }

  /** The code's bonus for a credit, or a 422 saying why the code is refused. */
  async bonusFor(customerId: number, code: string, creditMicros: number): Promise<{ discount: ResolvedDiscount; bonusMicros: number }> {
    const checked = await this.check(customerId, code);
    if (!checked.valid) throw refused(checked.reason);
    return { discount: checked.discount, bonusMicros: Math.floor((creditMicros * checked.discount.bonusPercent) / 100) };
  }

  /** Records the use with the checkout (checked again under the code's lock, so total uses hold under concurrency). */
  async redeem(trx: Transaction<Database>, customerId: number, code: string, paymentPublicId: string): Promise<void> {
    await this.storage.lockInTransaction(trx, CODE_LOCK_SCOPE, lockKey(code.toLowerCase()));
    const checked = await this.check(customerId, code, trx);
    if (!checked.valid) throw refused(checked.reason);
    await trx
      .insertInto('discount_redemptions')
      .values({ code: checked.discount.code, customer_id: customerId, payment_public_id: paymentPublicId, created_at: this.clock.nowMs() })
      .execute();
  }

  /** Issues a personal discount and mails it; one active (unexpired, unused) at a time. */
  async issueSessionDiscount(customer: {
    id: number;
    email: string;
  }): Promise<{ bonusPercent: number; expiresAt: number; mailedTo: string }> {
    const settings = this.config.payments.sessionDiscount;
    if (!settings.enabled) throw new AppError('NOT_FOUND', 'Session discounts are not offered');
    const nowMs = this.clock.nowMs();
    const code = `SD-${randomBase62(10)}`;
    const expiresAt = nowMs + settings.validMinutes * 60_000;
    await this.storage.db.transaction().execute(async (trx) => {
      await this.storage.lockInTransaction(trx, SESSION_LOCK_SCOPE, customer.id);
      const active = await trx
        .selectFrom('session_discounts as s')
        .select(['s.code', 's.expires_at'])
        .where('s.customer_id', '=', customer.id)
        .where('s.expires_at', '>', nowMs)
        .where('s.code', 'not in', (eb) => eb.selectFrom('discount_redemptions').select('code'))
        .executeTakeFirst();
      if (active) {
        throw new AppError('CONFLICT', 'A personal discount is already active', {
          details: { expires_at: new Date(Number(active.expires_at)).toISOString() },
        });
      }
      await trx
        .insertInto('session_discounts')
        .values({ code, customer_id: customer.id, bonus_percent: settings.bonusPercent, expires_at: expiresAt, created_at: nowMs })
        .execute();
    });
    try {
      await this.mailer.send({
        to: customer.email,
        subject: `Your ${settings.bonusPercent}% top-up bonus`,
        text: `Use the code ${code} at checkout before ${new Date(expiresAt).toISOString()} for ${settings.bonusPercent}% extra credit on a top-up. The code works once and only for your account.`,
      });
    } catch (error) {
      // Not delivered: the discount is withdrawn so another can be requested.
      await this.storage.db.deleteFrom('session_discounts').where('code', '=', code).execute();
      throw new AppError('UPSTREAM_FAILED', 'The discount email could not be sent', { cause: error });
    }
    return { bonusPercent: settings.bonusPercent, expiresAt, mailedTo: customer.email };
  }
}

function refused(reason: string): AppError {
  const messages: Record<string, string> = {
    unknown: 'Unknown discount code',
    expired: 'This discount code has expired',
    used_up: 'This discount code has been used up',
    already_used: 'You have already used this discount code',
  };
  return new AppError('VALIDATION_FAILED', messages[reason] ?? 'Discount code refused', {
    issues: [{ loc: ['body', 'discount_code'], msg: messages[reason] ?? 'Discount code refused', type: `discount_${reason}` }],
  });
}
