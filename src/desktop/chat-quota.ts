/**
 * The free daily quota of desktop chat: each customer may send `dailyMessages` messages per UTC day on the free
 * models without paying; later messages are billed to the wallet. A message takes its slot before the model call
 * (`reserve`, under the customer's lock, so concurrent sends never take more slots than the day has) and the slot
 * is given back when the call fails or never reaches the model (`release`). The meter of a free call
 * (`freeMeter`) enforces the key's model permissions and VIP gate like the wallet meter does, places no hold and
 * records the call's tokens on its slot.
 */
import type { Principal } from '../accounts/principal.js';
import type { Meter, MeteredCall } from '../billing/meter.js';
import { checkVip, modelAllowed } from '../billing/policy.js';
import type { AppConfig } from '../config/load-config.js';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso } from './text.js';

/** Lock scope of free-quota reservations (unique among the service's advisory locks). */
const FREE_QUOTA_LOCK_SCOPE = 0x4443_4651;
const DAY_MS = 24 * 3600 * 1000;

export interface FreeQuotaOptions {
  dailyMessages: number;
  models: readonly string[];
}

export interface FreeSlot {
  id: number;
  dayStartMs: number;
}

export function utcDayStart(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS;
}

export class FreeQuota {
  /** Settlements of free calls under way: reads wait for those accepted before them (read-your-writes). */
  private readonly settling = new Set<Promise<unknown>>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly options: FreeQuotaOptions,
  ) {}

  /** Whether messages to this model (as the conversation names it) may use the free quota. */
  coversModel(model: string): boolean {
    return this.options.dailyMessages > 0 && this.options.models.includes(model);
  }

  /** The quota as the desktop app shows it: allowance, used and left today, when it resets, the free models. */
  async status(customerId: number) {
    await this.settled();
    const dayStartMs = utcDayStart(this.clock.nowMs());
    const row = await this.storage.db
      .selectFrom('desktop_chat_free_usage')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('customer_id', '=', customerId)
      .where('day_start', '=', dayStartMs)
      .executeTakeFirst();
    const used = Math.min(this.options.dailyMessages, Number(row?.n ?? 0));
    return {
      daily_messages: this.options.dailyMessages,
      used,
      left: this.options.dailyMessages - used,
      resets_at: iso(dayStartMs + DAY_MS),
      models: [...this.options.models],
    };
  }

  /** Takes one free message of today, or null when today's are all taken. */
  async reserve(customerId: number, requestId: string): Promise<FreeSlot | null> {
    if (this.options.dailyMessages <= 0) return null;
    await this.settled();
    return this.storage.db.transaction().execute(async (trx) => {
      await this.storage.lockInTransaction(trx, FREE_QUOTA_LOCK_SCOPE, customerId);
      const nowMs = this.clock.nowMs();
      const dayStartMs = utcDayStart(nowMs);
      const row = await trx
        .selectFrom('desktop_chat_free_usage')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('customer_id', '=', customerId)
        .where('day_start', '=', dayStartMs)
        .executeTakeFirst();
      if (Number(row?.n ?? 0) >= this.options.dailyMessages) return null;
      const inserted = await trx
        .insertInto('desktop_chat_free_usage')
        .values({
          customer_id: customerId,
          day_start: dayStartMs,
          request_id: requestId,
          status: 'reserved',
          input_tokens: null,
          output_tokens: null,
          created_at: nowMs,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: Number(inserted.id), dayStartMs };
    });
  }

  /**
   * Resolves once every free-call settlement accepted so far has committed. A call's answer ends before its
   * settlement commits, so a quota read or a new reservation right after a failed call waits for its slot to
   * come back.
   */
  async settled(): Promise<void> {
    if (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  /** Gives the slot back (idempotent). */
  async release(slot: FreeSlot): Promise<void> {
    await this.storage.db.deleteFrom('desktop_chat_free_usage').where('id', '=', slot.id).where('status', '=', 'reserved').execute();
  }

  async markUsed(slot: FreeSlot, usage: { inputTokens: number; outputTokens: number }): Promise<void> {
    await this.storage.db
      .updateTable('desktop_chat_free_usage')
      .set({ status: 'used', input_tokens: usage.inputTokens, output_tokens: usage.outputTokens })
      .where('id', '=', slot.id)
      .where('status', '=', 'reserved')
      .execute();
  }

  /**
   * The meter of a free call. Settlement keeps the slot when the call completed (or the caller left after the
   * model produced output) and gives it back when the call failed or produced nothing.
   */
  meterFor(slot: FreeSlot): Meter {
    return {
      begin: async (request) => {
        checkPolicy(this.config, request.principal, request.requestedModel, request.modelId, request.host);
        let settled: ReturnType<MeteredCall['settle']> | null = null;
        return {
          holdMicros: 0,
          settle: (usage, status) => {
            if (settled) return settled;
            const settling = (async () => {
              if (status === 'completed' || (status === 'aborted' && usage.outputTokens > 0)) await this.markUsed(slot, usage);
              else await this.release(slot);
              return { costMicros: 0, covered: true };
            })();
            settled = settling;
            this.settling.add(settling);
            void settling.catch(() => undefined).finally(() => this.settling.delete(settling));
            return settling;
          },
        };
      },
    };
  }
}

function checkPolicy(config: AppConfig, principal: Principal, requestedModel: string, modelId: string, host: string | undefined): void {
  if (principal.kind !== 'customer') return;
  if (!modelAllowed(principal.policy, requestedModel, modelId))
    throw new AppError('MODEL_NOT_ALLOWED', `This API key may not use model ${requestedModel}`);
  checkVip(config, principal, requestedModel, modelId, host);
}
