/**
 * The lease rows (one per customer): acquire (insert, or take over a row that expired or was released, raising
 * the fencing token), renew, release, and the fencing check writers run inside their own transaction. Every
 * change is one conditional statement, so two nodes can never both win a row.
 */
import { sql, type Transaction } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';

export interface LeaseRow {
  customerId: number;
  holderNode: string;
  holderUrl: string;
  token: number;
  expiresAt: number;
}

export type AcquireResult =
  { acquired: true; token: number; previous: { holderNode: string; released: boolean } | null } | { acquired: false; row: LeaseRow };

export class LeaseStore {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async read(customerId: number): Promise<LeaseRow | null> {
    const row = await this.storage.db.selectFrom('scale_leases').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
    return row ? toLease(row) : null;
  }

  /** Takes the customer's lease for `node` unless another node holds it unexpired. */
  async acquire(customerId: number, node: string, url: string, ttlMs: number): Promise<AcquireResult> {
    const now = this.clock.nowMs();
    const inserted = await this.storage.db
      .insertInto('scale_leases')
      .values({ customer_id: customerId, holder_node: node, holder_url: url, token: 1, expires_at: now + ttlMs, updated_at: now })
      .onConflict((conflict) => conflict.column('customer_id').doNothing())
      .returning('token')
      .executeTakeFirst();
    if (inserted) return { acquired: true, token: Number(inserted.token), previous: null };
    const current = await this.read(customerId);
    if (!current) return this.acquire(customerId, node, url, ttlMs);
    if (current.expiresAt > now) return { acquired: false, row: current };
    // Conditional on the token read: of two nodes taking the same expired row over, one wins.
    const taken = await this.storage.db
      .updateTable('scale_leases')
      .set({ holder_node: node, holder_url: url, token: current.token + 1, expires_at: now + ttlMs, updated_at: now })
      .where('customer_id', '=', customerId)
      .where('token', '=', current.token)
      .where('expires_at', '<=', now)
      .returning('token')
      .executeTakeFirst();
    if (taken)
      return {
        acquired: true,
        token: Number(taken.token),
        previous: { holderNode: current.holderNode, released: current.expiresAt === 0 },
      };
    const winner = await this.read(customerId);
    return winner ? { acquired: false, row: winner } : this.acquire(customerId, node, url, ttlMs);
  }

  /** Extends the lease; false when the node no longer holds it with this token. */
  async renew(customerId: number, node: string, token: number, ttlMs: number): Promise<boolean> {
    const now = this.clock.nowMs();
    const result = await this.storage.db
      .updateTable('scale_leases')
      .set({ expires_at: now + ttlMs, updated_at: now })
      .where('customer_id', '=', customerId)
      .where('holder_node', '=', node)
      .where('token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Gives the lease up (expiry 0): the next node to need the customer takes it at once. */
  async release(customerId: number, node: string, token: number): Promise<void> {
    await this.storage.db
      .updateTable('scale_leases')
      .set({ expires_at: 0, updated_at: this.clock.nowMs() })
      .where('customer_id', '=', customerId)
      .where('holder_node', '=', node)
      .where('token', '=', token)
      .execute();
  }

  /**
   * The lease rows of the customers owning `projectIds`, read inside the writer's transaction. On PostgreSQL the
   * rows are share-locked: a takeover (an UPDATE of the row) waits until the write commits, and a write after the
   * takeover sees the new token.
   */
  async leasesOfProjects(
    trx: Transaction<Database>,
    projectIds: string[],
  ): Promise<Map<string, { customerId: number; holderNode: string; token: number } | null>> {
    const query = trx
      .selectFrom('projects')
      .innerJoin('scale_leases', 'scale_leases.customer_id', 'projects.customer_id')
      .select(['projects.id as project_id', 'scale_leases.customer_id', 'scale_leases.holder_node', 'scale_leases.token'])
      .where('projects.id', 'in', projectIds);
    const rows = this.storage.capabilities.concurrentWriters
      ? await query.modifyEnd(sql`for share of scale_leases`).execute()
      : await query.execute();
    const found = new Map<string, { customerId: number; holderNode: string; token: number } | null>(projectIds.map((id) => [id, null]));
    for (const row of rows)
      found.set(row.project_id, { customerId: Number(row.customer_id), holderNode: row.holder_node, token: Number(row.token) });
    return found;
  }

  /** Leases this node holds according to the table (metrics, tests). */
  async countHeldBy(node: string): Promise<number> {
    const row = await this.storage.db
      .selectFrom('scale_leases')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('holder_node', '=', node)
      .where('expires_at', '>', this.clock.nowMs())
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

function toLease(row: { customer_id: number; holder_node: string; holder_url: string; token: number; expires_at: number }): LeaseRow {
  return {
    customerId: Number(row.customer_id),
    holderNode: row.holder_node,
    holderUrl: row.holder_url,
    token: Number(row.token),
    expiresAt: Number(row.expires_at),
  };
}
