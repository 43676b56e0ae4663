/**
 * The usage webhook: every settled call is POSTed to the operator's receiver, signed like the payment webhooks
 * (`x-switchyard-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` under the configured secret).
 * Delivery is at least once and survives restarts: each pass first copies the calls settled since the outbox's
 * newest entry (less a margin for settlements committed late) into `usage_webhook_outbox` — one row per call, so
 * several nodes may do it at once — then delivers the rows that are due. A node claims a row by moving its next
 * attempt forward before sending; a failed attempt (no 2xx, timeout, refused connection) is tried again later,
 * waiting twice as long each time up to `maxBackoffMs`. Receivers dedupe on `x-switchyard-delivery` (the call id).
 */
import { request as undiciRequest } from 'undici';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';
import { signatureHeader } from './payments/webhook-signature.js';
import { usageRecord } from './usage-export.js';

export const USAGE_SIGNATURE_HEADER = 'x-switchyard-signature';
export const USAGE_DELIVERY_HEADER = 'x-switchyard-delivery';

/** Settlements are stamped before they commit; calls settled this long before the newest one are looked at again. */
const LATE_COMMIT_MARGIN_MS = 5 * 60_000;
/** How long a claimed delivery is left to its node before another may try it. */
const CLAIM_MS = 60_000;
const BATCH = 100;

export interface UsageWebhookOptions {
  url: string;
  secret: string;
  pollMs: number;
  timeoutMs: number;
  firstBackoffMs: number;
  maxBackoffMs: number;
}

export interface UsageWebhookDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
}

export class UsageWebhook {
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  /** The first pass of an empty outbox delivers calls settled from here on. */
  private readonly startedMs: number;

  constructor(
    private readonly deps: UsageWebhookDeps,
    private readonly options: UsageWebhookOptions,
  ) {
    this.startedMs = deps.clock.nowMs();
  }

  start(): void {
    this.timer = this.deps.clock.setInterval(() => void this.pass(), this.options.pollMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.deps.clock.clearInterval(this.timer);
    await this.running;
  }

  /** One pass: enqueue what settled, deliver what is due. Passes never overlap; a failure is logged and retried. */
  pass(): Promise<void> {
    this.running ??= (async () => {
      try {
        await this.enqueueSettled();
        await this.deliverDue();
      } catch (error) {
        this.deps.logger.error({ err: error }, 'usage webhook pass failed');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Copies settled calls not yet in the outbox into it; how many. */
  async enqueueSettled(): Promise<number> {
    const { db, clock } = this.deps;
    const newest = await db
      .selectFrom('usage_webhook_outbox')
      .select((eb) => eb.fn.max('settled_at').as('newest'))
      .executeTakeFirst();
    const sinceMs = newest?.newest == null ? this.startedMs : Number(newest.newest) - LATE_COMMIT_MARGIN_MS;
    const nowMs = clock.nowMs();
    const result = await db
      .insertInto('usage_webhook_outbox')
      .columns(['call_id', 'settled_at', 'attempts', 'next_attempt_at', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('billing_calls as c')
          .leftJoin('usage_webhook_outbox as o', 'o.call_id', 'c.id')
          .select([
            'c.id',
            sql<number>`c.settled_at`.as('settled_at'),
            sql.lit(0).as('attempts'),
            sql.lit(nowMs).as('next_attempt_at'),
            sql.lit(nowMs).as('created_at'),
          ])
          .where('c.status', '=', 'settled')
          .where('c.settled_at', '>=', sinceMs)
          .where('o.id', 'is', null),
      )
      .onConflict((conflict) => conflict.column('call_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  /** Delivers the due rows, oldest settlement first; how many were delivered. */
  async deliverDue(): Promise<number> {
    const { db, clock } = this.deps;
    let delivered = 0;
    const due = await db
      .selectFrom('usage_webhook_outbox as o')
      .innerJoin('billing_calls as c', 'c.id', 'o.call_id')
      .selectAll('c')
      .select(['o.id as outbox_id', 'o.attempts as attempts', 'o.next_attempt_at as next_attempt_at'])
      .where('o.delivered_at', 'is', null)
      .where('o.next_attempt_at', '<=', clock.nowMs())
      .orderBy('o.settled_at')
      .orderBy('o.id')
      .limit(BATCH)
      .execute();
    for (const row of due) {
      if (!(await this.claim(Number(row.outbox_id), Number(row.next_attempt_at)))) continue;
      const failure = await this.send(JSON.stringify({ type: 'call.settled', call: usageRecord(row) }), Number(row.id));
      const nowMs = clock.nowMs();
      if (failure === null) {
        delivered += 1;
        await db
          .updateTable('usage_webhook_outbox')
          .set({ delivered_at: nowMs, attempts: Number(row.attempts) + 1, last_error: null })
          .where('id', '=', row.outbox_id)
          .execute();
      } else {
        const attempts = Number(row.attempts) + 1;
        const backoffMs = Math.min(this.options.firstBackoffMs * 2 ** (attempts - 1), this.options.maxBackoffMs);
        await db
          .updateTable('usage_webhook_outbox')
          .set({ attempts, next_attempt_at: nowMs + backoffMs, last_error: failure })
          .where('id', '=', row.outbox_id)
          .execute();
        this.deps.logger.warn({ callId: Number(row.id), attempts, retryInMs: backoffMs, error: failure }, 'usage webhook delivery failed');
      }
    }
    return delivered;
  }

  /** Outbox rows still owed to the receiver (the operator's backlog). */
  async pending(): Promise<number> {
    const row = await this.deps.db
      .selectFrom('usage_webhook_outbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('delivered_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Moves the row's next attempt past the claim time, only if no other node did first. */
  private async claim(id: number, nextAttemptAt: number): Promise<boolean> {
    const result = await this.deps.db
      .updateTable('usage_webhook_outbox')
      .set({ next_attempt_at: this.deps.clock.nowMs() + CLAIM_MS })
      .where('id', '=', id)
      .where('next_attempt_at', '=', nextAttemptAt)
      .where('delivered_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Null when the receiver answered 2xx; else what went wrong (kept in the outbox row). */
  private async send(body: string, callId: number): Promise<string | null> {
    const signature = signatureHeader(this.options.secret, Math.floor(this.deps.clock.nowMs() / 1000), body);
    try {
      const answer = await undiciRequest(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [USAGE_SIGNATURE_HEADER]: signature, [USAGE_DELIVERY_HEADER]: String(callId) },
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      await answer.body.dump();
      return answer.statusCode >= 200 && answer.statusCode < 300 ? null : `HTTP ${answer.statusCode}`;
    } catch (error) {
      return (error as { code?: string }).code ?? (error as Error).message ?? 'delivery failed';
    }
  }
}
