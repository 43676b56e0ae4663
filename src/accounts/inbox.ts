/**
 * The customer inbox. A message goes to one customer or to all; a broadcast is one row (customer_id null)
 * that every customer sees. Reads are one row per (message, customer) once read.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { Kysely, Transaction } from 'kysely';

export type InboxTarget = { customerId: number } | { all: true };

export class Inbox {
  /** Called after an operator's broadcast was stored (its product-update mail). */
  readonly broadcastListeners: Array<(message: { id: number; title: string; body: string }) => Promise<void>> = [];

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    /** Whether the customer sees the operator's broadcasts (engagement preference `inApp.announcements`). */
    private readonly showsBroadcasts: (customerId: number) => Promise<boolean> = async () => true,
  ) {}

  /** An account or billing event for one customer (payment received, a key alert), in the caller's transaction if any. */
  async notify(
    customerId: number,
    title: string,
    body: string,
    executor: Kysely<Database> | Transaction<Database> = this.storage.db,
  ): Promise<void> {
    await executor.insertInto('inbox_messages').values({ customer_id: customerId, title, body, created_at: this.clock.nowMs() }).execute();
  }

  async post(input: InboxTarget & { title: string; body: string }): Promise<{ id: number; created_at: string }> {
    const now = this.clock.nowMs();
    const customerId = 'customerId' in input ? input.customerId : null;
    if (customerId !== null) {
      const exists = await this.storage.db.selectFrom('customers').select('id').where('id', '=', customerId).executeTakeFirst();
      if (!exists) throw new AppError('NOT_FOUND', 'Customer not found');
    }
    const row = await this.storage.db
      .insertInto('inbox_messages')
      .values({ customer_id: customerId, title: input.title, body: input.body, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (customerId === null)
      for (const listener of this.broadcastListeners) await listener({ id: Number(row.id), title: input.title, body: input.body });
    return { id: Number(row.id), created_at: new Date(now).toISOString() };
  }

  async list(customerId: number, limit: number) {
    const db = this.storage.db;
    const broadcasts = await this.showsBroadcasts(customerId);
    const visible = db
      .selectFrom('inbox_messages as m')
      .leftJoin('inbox_reads as r', (join) => join.onRef('r.message_id', '=', 'm.id').on('r.customer_id', '=', customerId))
      .where((eb) =>
        broadcasts ? eb.or([eb('m.customer_id', '=', customerId), eb('m.customer_id', 'is', null)]) : eb('m.customer_id', '=', customerId),
      );
    const [rows, unread] = await Promise.all([
      visible
        .select(['m.id', 'm.customer_id', 'm.title', 'm.body', 'm.created_at', 'r.read_at'])
        .orderBy('m.id', 'desc')
        .limit(limit)
        .execute(),
      visible
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('r.read_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      data: rows.map((row) => ({
        id: Number(row.id),
        title: row.title,
        body: row.body,
        broadcast: row.customer_id === null,
        created_at: new Date(Number(row.created_at)).toISOString(),
        read: row.read_at !== null,
        read_at: row.read_at === null ? null : new Date(Number(row.read_at)).toISOString(),
      })),
      unread_count: Number(unread.n),
    };
  }

  /** Marks a message read; another customer's message (or none) is 404. Reading twice keeps the first time. */
  async markRead(customerId: number, messageId: number): Promise<{ id: number; read: true }> {
    const db = this.storage.db;
    const message = await db
      .selectFrom('inbox_messages')
      .select('id')
      .where('id', '=', messageId)
      .where((eb) => eb.or([eb('customer_id', '=', customerId), eb('customer_id', 'is', null)]))
      .executeTakeFirst();
    if (!message) throw new AppError('NOT_FOUND', 'Message not found');
    await db
      .insertInto('inbox_reads')
      .values({ message_id: messageId, customer_id: customerId, read_at: this.clock.nowMs() })
      .onConflict((conflict) => conflict.columns(['message_id', 'customer_id']).doNothing())
      .execute();
    return { id: messageId, read: true };
  }
}
