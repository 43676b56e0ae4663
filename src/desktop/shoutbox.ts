/**
 * The shoutbox every desktop customer shares. Posting needs a username (unique ignoring case, bounded charset);
 * messages are plain text, length-limited and rate-limited per customer (a sliding minute, counted under a
 * lock so concurrent posts cannot exceed it). The service never renders them as HTML.
 *
 * Posts take one shoutbox-wide lock, not a per-customer one: ids are then given out and committed in the same
 * order, so a reader that has seen id n has seen every id below it, which the live stream's cursor relies on.
 */
import { AppError, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso } from './text.js';

export const SHOUTBOX_USERNAME_PATTERN = '^[A-Za-z0-9_.-]{3,24}$';
const SHOUTBOX_LOCK_SCOPE = 0x5348_4f55;
const WINDOW_MS = 60_000;

export interface ShoutboxLimits {
  maxMessageChars: number;
  messagesPerMinute: number;
}

type MessageRow = { id: number | string; customer_id: number | string; username: string; text: string; created_at: number | string };

export type ShoutboxMessage = ReturnType<typeof messageJson>;

function messageJson(row: MessageRow, customerId: number) {
  return {
    id: Number(row.id),
    username: row.username,
    text: row.text,
    created_at: iso(row.created_at),
    mine: Number(row.customer_id) === customerId,
  };
}

export class Shoutbox {
  private readonly postListeners = new Set<() => void>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly limits: ShoutboxLimits,
  ) {}

  async profile(customerId: number): Promise<{ username: string } | null> {
    const row = await this.storage.db
      .selectFrom('shoutbox_profiles')
      .select('username')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return row ? { username: row.username } : null;
  }

  async setUsername(customerId: number, username: string): Promise<{ username: string }> {
    if (!new RegExp(SHOUTBOX_USERNAME_PATTERN).test(username)) {
      throw validationError([{ loc: ['body', 'username'], msg: '3 to 24 of A-Z a-z 0-9 _ . -', type: 'value_error.str.regex' }]);
    }
    const key = username.toLowerCase();
    const now = this.clock.nowMs();
    try {
      await this.storage.db
        .insertInto('shoutbox_profiles')
        .values({ customer_id: customerId, username, username_key: key, updated_at: now })
        .onConflict((conflict) => conflict.column('customer_id').doUpdateSet({ username, username_key: key, updated_at: now }))
        .execute();
    } catch (error) {
      // The unique index on username_key decides under concurrency; only a taken name fails here.
      const holder = await this.storage.db
        .selectFrom('shoutbox_profiles')
        .select('customer_id')
        .where('username_key', '=', key)
        .executeTakeFirst();
      if (holder && Number(holder.customer_id) !== customerId)
        throw new AppError('CONFLICT', 'This username is taken', { details: { username } });
      throw error;
    }
    return { username };
  }

  async post(customerId: number, rawText: string) {
    const text = rawText.trim();
    if (text.length === 0)
      throw validationError([{ loc: ['body', 'text'], msg: 'text must not be blank', type: 'value_error.any_str.min_length' }]);
    const chars = [...text].length;
    if (chars > this.limits.maxMessageChars) {
      throw validationError([
        { loc: ['body', 'text'], msg: `at most ${this.limits.maxMessageChars} characters`, type: 'value_error.any_str.max_length' },
      ]);
    }
    const posted = await this.storage.db.transaction().execute(async (trx) => {
      await this.storage.lockInTransaction(trx, SHOUTBOX_LOCK_SCOPE, 0);
      const profile = await trx.selectFrom('shoutbox_profiles').select('username').where('customer_id', '=', customerId).executeTakeFirst();
      if (!profile)
        throw new AppError('PRECONDITION_FAILED', 'Choose a shoutbox username first (POST /api/v1/desktop-chat/shoutbox/profile)');
      const now = this.clock.nowMs();
      const recent = await trx
        .selectFrom('shoutbox_messages')
        .select('created_at')
        .where('customer_id', '=', customerId)
        .where('created_at', '>', now - WINDOW_MS)
        .orderBy('created_at')
        .limit(this.limits.messagesPerMinute)
        .execute();
      if (recent.length >= this.limits.messagesPerMinute) {
        const retryMs = Number(recent[0]!.created_at) + WINDOW_MS - now;
        throw new AppError('RATE_LIMITED', `At most ${this.limits.messagesPerMinute} shoutbox messages a minute`, {
          retryAfterSeconds: retryMs / 1000,
        });
      }
      const row = await trx
        .insertInto('shoutbox_messages')
        .values({ customer_id: customerId, text, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: Number(row.id), username: profile.username, text, created_at: iso(now), mine: true };
    });
    for (const listener of this.postListeners) listener();
    return posted;
  }

  /** Calls `listener` after every committed post of this process; returns the unsubscribe. */
  onPost(listener: () => void): () => void {
    this.postListeners.add(listener);
    return () => this.postListeners.delete(listener);
  }

  /** The newest message id (0 when there is none). */
  async newestId(): Promise<number> {
    const row = await this.storage.db
      .selectFrom('shoutbox_messages')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /** Messages after `afterId`, oldest first (the live stream's order). */
  async since(customerId: number, afterId: number, limit: number): Promise<ShoutboxMessage[]> {
    const rows = await this.messages().where('m.id', '>', afterId).orderBy('m.id', 'asc').limit(limit).execute();
    return rows.map((row) => messageJson(row, customerId));
  }

  /** Messages with their author's username (the columns `messageJson` reads). */
  private messages() {
    return this.storage.db
      .selectFrom('shoutbox_messages as m')
      .innerJoin('shoutbox_profiles as p', 'p.customer_id', 'm.customer_id')
      .select(['m.id', 'm.customer_id', 'p.username', 'm.text', 'm.created_at']);
  }

  /** Newest first; `beforeId` pages back, `afterId` polls for newer ones. */
  async list(customerId: number, options: { limit: number; beforeId?: number; afterId?: number }) {
    let query = this.messages().orderBy('m.id', 'desc').limit(options.limit);
    if (options.beforeId !== undefined) query = query.where('m.id', '<', options.beforeId);
    if (options.afterId !== undefined) query = query.where('m.id', '>', options.afterId);
    const rows = await query.execute();
    return { data: rows.map((row) => messageJson(row, customerId)) };
  }

  async bootstrap(customerId: number, limit: number) {
    const [profile, messages] = await Promise.all([this.profile(customerId), this.list(customerId, { limit })]);
    return {
      profile,
      messages: messages.data,
      limits: {
        max_message_chars: this.limits.maxMessageChars,
        messages_per_minute: this.limits.messagesPerMinute,
        username_pattern: SHOUTBOX_USERNAME_PATTERN,
      },
    };
  }
}
