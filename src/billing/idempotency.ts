/**
 * Idempotency keys on money-moving POSTs (Stripe semantics). The first request with a key claims it and runs;
 * its result is stored in the same transaction as its ledger rows. The same key with the same body returns
 * that first result (concurrent duplicates wait for it); with a different body it is a 422 and nothing runs.
 * Keys are scoped (per customer) and kept for the configured retention (≥ 24 h).
 */
import { createHash } from 'node:crypto';
import type { Selectable, Transaction } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { IdempotencyKeysTable } from '../storage/tables/billing.js';

export interface StoredResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** A claim whose executor crashed may be taken over after this long. */
const LOCK_MS = 30_000;
const POLL_MS = 25;
const WAIT_LIMIT_MS = 20_000;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestHash(route: string, body: unknown): string {
  return createHash('sha256').update(route).update('\n').update(canonical(body)).digest('hex');
}

export function checkIdempotencyKey(key: string | undefined): string {
  if (key === undefined || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError('VALIDATION_FAILED', 'Idempotency-Key header is required (1-255 visible ASCII characters)', {
      issues: [
        { loc: ['header', 'idempotency-key'], msg: 'Idempotency-Key header is required (1-255 visible ASCII characters)', type: 'missing' },
      ],
    });
  }
  return key;
}

export class IdempotencyStore {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly retentionMs: number,
  ) {}

  /**
   * Runs `execute` at most once per (scope, key). `execute` receives the transaction that also records the
   * result, so the ledger rows and the stored response commit together.
   */
  async run(
    scope: string,
    key: string,
    hash: string,
    execute: (trx: Transaction<Database>) => Promise<{ status: number; body: unknown }>,
  ): Promise<StoredResult> {
    // The wait is measured in real time, like the polling below: the service clock may be set apart from it.
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const claimed = await this.claim(scope, key, hash);
      if (claimed === 'claimed') break;
      if (claimed.request_hash !== hash) {
        throw new AppError('VALIDATION_FAILED', 'Idempotency-Key was already used with a different request body', {
          issues: [
            {
              loc: ['header', 'idempotency-key'],
              msg: 'Idempotency-Key was already used with a different request body',
              type: 'idempotency_mismatch',
            },
          ],
        });
      }
      if (claimed.status === 'done') {
        return { status: claimed.response_status ?? 200, body: JSON.parse(claimed.response_json ?? 'null'), replayed: true };
      }
      if (Date.now() > deadline) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    try {
      return await this.storage.db.transaction().execute(async (trx) => {
        const result = await execute(trx);
        await trx
          .updateTable('idempotency_keys')
          .set({ status: 'done', response_status: result.status, response_json: JSON.stringify(result.body) })
          .where('scope', '=', scope)
          .where('idempotency_key', '=', key)
          .execute();
        return { ...result, replayed: false };
      });
    } catch (error) {
      // The request failed without effect: free the key so a corrected retry can run.
      await this.storage.db
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('idempotency_key', '=', key)
        .where('status', '=', 'pending')
        .execute();
      throw error;
    }
  }

  private async claim(scope: string, key: string, hash: string): Promise<'claimed' | Selectable<IdempotencyKeysTable>> {
    const nowMs = this.clock.nowMs();
    const inserted = await this.storage.db
      .insertInto('idempotency_keys')
      .values({
        scope,
        idempotency_key: key,
        request_hash: hash,
        status: 'pending',
        response_status: null,
        response_json: null,
        created_at: nowMs,
        locked_until: nowMs + LOCK_MS,
      })
      .onConflict((conflict) => conflict.columns(['scope', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return 'claimed' as const;
    const existing = await this.storage.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', '=', scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (!existing) return this.claim(scope, key, hash);
    if (existing.status === 'pending' && existing.locked_until < nowMs && existing.request_hash === hash) {
      const taken = await this.storage.db
        .updateTable('idempotency_keys')
        .set({ locked_until: nowMs + LOCK_MS })
        .where('scope', '=', scope)
        .where('idempotency_key', '=', key)
        .where('status', '=', 'pending')
        .where('locked_until', '=', existing.locked_until)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return 'claimed' as const;
    }
    return existing;
  }

  async purgeExpired(): Promise<void> {
    await this.storage.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', this.clock.nowMs() - this.retentionMs)
      .where('status', '=', 'done')
      .execute();
  }
}
