/**
 * Service messages operators push to desktop clients: to one customer or to all (one row), optionally
 * expiring. Each customer dismisses for themselves only; another customer's message (or an unknown key) is a
 * 404, so existence is never confirmed.
 */
import { AppError, notFound } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import { randomBase62 } from '../kernel/ids.js';
import type { Storage } from '../storage/database.js';
import { iso } from './text.js';

export const PUSH_LEVELS = ['info', 'warning', 'critical'] as const;
export type PushLevel = (typeof PUSH_LEVELS)[number];

export interface PushInput {
  messageKey?: string;
  customerId?: number;
  title: string;
  body: string;
  level: PushLevel;
  expiresAtMs?: number;
}

export class PushMessages {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async post(input: PushInput) {
    const db = this.storage.db;
    const now = this.clock.nowMs();
    if (input.customerId !== undefined) {
      const exists = await db.selectFrom('customers').select('id').where('id', '=', input.customerId).executeTakeFirst();
      if (!exists) throw notFound('Customer');
    }
    const messageKey = input.messageKey ?? `push_${randomBase62(16)}`;
    const inserted = await db
      .insertInto('desktop_push_messages')
      .values({
        message_key: messageKey,
        customer_id: input.customerId ?? null,
        title: input.title,
        body: input.body,
        level: input.level,
        created_at: now,
        expires_at: input.expiresAtMs ?? null,
      })
      .onConflict((conflict) => conflict.column('message_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) throw new AppError('CONFLICT', `A push message with key ${messageKey} exists`, { details: { message_key: messageKey } });
    return {
      id: Number(inserted.id),
      message_key: messageKey,
      customer_id: input.customerId ?? null,
      broadcast: input.customerId === undefined,
      level: input.level,
      created_at: iso(now),
      expires_at: iso(input.expiresAtMs ?? null),
    };
  }

  private visibleTo(customerId: number) {
    return this.storage.db
      .selectFrom('desktop_push_messages as m')
      .where((eb) => eb.or([eb('m.customer_id', '=', customerId), eb('m.customer_id', 'is', null)]));
  }

  /** The customer's live messages (not dismissed by them, not expired), newest first. */
  async list(customerId: number, limit: number) {
    const now = this.clock.nowMs();
    const rows = await this.visibleTo(customerId)
      .leftJoin('desktop_push_dismissals as d', (join) => join.onRef('d.message_id', '=', 'm.id').on('d.customer_id', '=', customerId))
      .where('d.message_id', 'is', null)
      .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', now)]))
      .select(['m.message_key', 'm.customer_id', 'm.title', 'm.body', 'm.level', 'm.created_at', 'm.expires_at'])
      .orderBy('m.id', 'desc')
      .limit(limit)
      .execute();
    return {
      data: rows.map((row) => ({
        message_key: row.message_key,
        title: row.title,
        body: row.body,
        level: row.level,
        broadcast: row.customer_id === null,
        created_at: iso(row.created_at),
        expires_at: iso(row.expires_at),
      })),
    };
  }

  /** Dismisses for this customer only; twice keeps the first time. */
  async dismiss(customerId: number, messageKey: string) {
    const message = await this.visibleTo(customerId).select('m.id').where('m.message_key', '=', messageKey).executeTakeFirst();
    if (!message) throw notFound('Push message');
    const now = this.clock.nowMs();
    await this.storage.db
      .insertInto('desktop_push_dismissals')
      .values({ message_id: Number(message.id), customer_id: customerId, dismissed_at: now })
      .onConflict((conflict) => conflict.columns(['message_id', 'customer_id']).doNothing())
      .execute();
    const row = await this.storage.db
      .selectFrom('desktop_push_dismissals')
      .select('dismissed_at')
      .where('message_id', '=', Number(message.id))
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    return { message_key: messageKey, dismissed: true, dismissed_at: iso(row.dismissed_at) };
  }
}
