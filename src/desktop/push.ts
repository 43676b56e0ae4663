/**
 * Service messages operators push to desktop clients: to one customer or to all (one row), optionally
 * expiring. Each customer dismisses for themselves only; another customer's message (or an unknown key) is a
 * 404, so existence is never confirmed. Connected desktops get them live (`since` and `onPost` feed the SSE
 * stream): posts take one lock, so ids are handed out and committed in the same order and a stream's cursor
 * (the message id, `Last-Event-ID`) never skips one.
 */
import { AppError, notFound } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import { randomBase62 } from '../kernel/ids.js';
import type { Storage } from '../storage/database.js';
import { iso } from './text.js';

const PUSH_LOCK_SCOPE = 0x5055_5348;

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
  private readonly postListeners = new Set<() => void>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /** Called after each post on this node (the live streams wake up). */
  onPost(listener: () => void): () => void {
    this.postListeners.add(listener);
    return () => this.postListeners.delete(listener);
  }

  async newestId(): Promise<number> {
    const row = await this.storage.db
      .selectFrom('desktop_push_messages')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /** The customer's live messages after `afterId`, oldest first (the SSE stream's pages). */
  async since(customerId: number, afterId: number, limit: number) {
    return (await this.live(customerId).where('m.id', '>', afterId).orderBy('m.id', 'asc').limit(limit).execute()).map((row) => ({
      id: Number(row.id),
      ...messageJson(row),
    }));
  }

  async post(input: PushInput) {
    const now = this.clock.nowMs();
    if (input.customerId !== undefined) {
      const exists = await this.storage.db.selectFrom('customers').select('id').where('id', '=', input.customerId).executeTakeFirst();
      if (!exists) throw notFound('Customer');
    }
    const messageKey = input.messageKey ?? `push_${randomBase62(16)}`;
    const inserted = await this.storage.db.transaction().execute(async (trx) => {
      await this.storage.lockInTransaction(trx, PUSH_LOCK_SCOPE, 0);
      return trx
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
    });
    if (inserted) for (const listener of this.postListeners) listener();
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

  /** The customer's messages neither dismissed by them nor expired. */
  private live(customerId: number) {
    const now = this.clock.nowMs();
    return this.visibleTo(customerId)
      .leftJoin('desktop_push_dismissals as d', (join) => join.onRef('d.message_id', '=', 'm.id').on('d.customer_id', '=', customerId))
      .where('d.message_id', 'is', null)
      .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', now)]))
      .select(['m.id', 'm.message_key', 'm.customer_id', 'm.title', 'm.body', 'm.level', 'm.created_at', 'm.expires_at']);
  }

  /** The customer's live messages (not dismissed by them, not expired), newest first. */
  async list(customerId: number, limit: number) {
    const rows = await this.live(customerId).orderBy('m.id', 'desc').limit(limit).execute();
    return { data: rows.map(messageJson) };
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

function messageJson(row: {
  message_key: string;
  customer_id: number | null;
  title: string;
  body: string;
  level: string;
  created_at: number;
  expires_at: number | null;
}) {
  return {
    message_key: row.message_key,
    title: row.title,
    body: row.body,
    level: row.level,
    broadcast: row.customer_id === null,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
  };
}
