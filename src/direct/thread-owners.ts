/** Thread → customer records of direct threads (started on the direct surface or through the passthrough). */
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';

export interface DirectThreadOwner {
  threadId: string;
  customerId: number;
  cwd: string;
  createdAt: number;
}

export class DirectThreadOwners {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async record(threadId: string, customerId: number, cwd: string): Promise<void> {
    await this.storage.db
      .insertInto('direct_threads')
      .values({ thread_id: threadId, customer_id: customerId, cwd, created_at: this.clock.nowMs() })
      .onConflict((conflict) => conflict.column('thread_id').doNothing())
      .execute();
  }

  async ownerOf(threadId: string): Promise<DirectThreadOwner | null> {
    const row = await this.storage.db.selectFrom('direct_threads').selectAll().where('thread_id', '=', threadId).executeTakeFirst();
    return row ? toOwner(row) : null;
  }

  /** The customer's newest direct thread started in `cwd`. */
  async latestIn(customerId: number, cwd: string): Promise<DirectThreadOwner | null> {
    const row = await this.storage.db
      .selectFrom('direct_threads')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('cwd', '=', cwd)
      .orderBy('created_at', 'desc')
      .orderBy('thread_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toOwner(row) : null;
  }
}

function toOwner(row: {
  thread_id: string;
  customer_id: number | string | bigint;
  cwd: string;
  created_at: number | string | bigint;
}): DirectThreadOwner {
  return { threadId: row.thread_id, customerId: Number(row.customer_id), cwd: row.cwd, createdAt: Number(row.created_at) };
}
