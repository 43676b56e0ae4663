/** Project → thread records and the turn-start idempotency records (both fenced with several nodes). */
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { WriteFence } from '../scale/fence.js';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface ProjectThread {
  projectId: string;
  customerId: number;
  threadId: string;
  createdAt: number;
}

export class ThreadRepository {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    /** Scale-out: project-thread writes of a node that lost the customer's lease are refused. */
    private readonly fence?: WriteFence,
  ) {}

  /** Runs a write of the project's thread record, fenced in its own transaction when several nodes share the table. */
  private write<T>(projectId: string, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    const fence = this.fence;
    if (!fence) return work(this.storage.db);
    return this.storage.db.transaction().execute(async (trx) => {
      await fence.check(trx, [projectId]);
      return work(trx);
    });
  }

  async forProject(projectId: string): Promise<ProjectThread | null> {
    const row = await this.storage.db
      .selectFrom('agent_project_threads')
      .selectAll()
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return row
      ? { projectId: row.project_id, customerId: Number(row.customer_id), threadId: row.thread_id, createdAt: Number(row.created_at) }
      : null;
  }

  async forThread(threadId: string): Promise<ProjectThread | null> {
    const row = await this.storage.db.selectFrom('agent_project_threads').selectAll().where('thread_id', '=', threadId).executeTakeFirst();
    return row
      ? { projectId: row.project_id, customerId: Number(row.customer_id), threadId: row.thread_id, createdAt: Number(row.created_at) }
      : null;
  }

  /** The thread records of the customer's projects. */
  async ofCustomer(customerId: number): Promise<ProjectThread[]> {
    const rows = await this.storage.db.selectFrom('agent_project_threads').selectAll().where('customer_id', '=', customerId).execute();
    return rows.map((row) => ({
      projectId: row.project_id,
      customerId: Number(row.customer_id),
      threadId: row.thread_id,
      createdAt: Number(row.created_at),
    }));
  }

  /** Records the project's thread; keeps the first one if another writer recorded one concurrently. */
  async record(projectId: string, customerId: number, threadId: string): Promise<ProjectThread> {
    const now = this.clock.nowMs();
    await this.write(projectId, (db) =>
      db
        .insertInto('agent_project_threads')
        .values({ project_id: projectId, customer_id: customerId, thread_id: threadId, created_at: now, updated_at: now })
        .onConflict((conflict) => conflict.column('project_id').doNothing())
        .execute(),
    );
    return (await this.forProject(projectId))!;
  }

  /** Swaps the project's thread, only if it still is `previousThreadId`. */
  async replace(projectId: string, previousThreadId: string, threadId: string): Promise<void> {
    await this.write(projectId, (db) =>
      db
        .updateTable('agent_project_threads')
        .set({ thread_id: threadId, updated_at: this.clock.nowMs() })
        .where('project_id', '=', projectId)
        .where('thread_id', '=', previousThreadId)
        .execute(),
    );
  }

  /**
   * Marks the project's thread as used now (every turn start). An activity timestamp: its commit does not wait
   * for the disk, which on SQLite would be an fsync on the event loop in front of the turn's 202.
   */
  async touch(projectId: string): Promise<void> {
    await this.storage.relaxedTransaction(async (trx) => {
      if (this.fence) await this.fence.check(trx, [projectId]);
      await trx.updateTable('agent_project_threads').set({ updated_at: this.clock.nowMs() }).where('project_id', '=', projectId).execute();
    });
  }

  async findTurnRequest(projectId: string, idempotencyKey: string): Promise<{ requestHash: string; response: unknown } | null> {
    const row = await this.storage.db
      .selectFrom('agent_turn_requests')
      .select(['request_hash', 'response_json'])
      .where('project_id', '=', projectId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    return row ? { requestHash: row.request_hash, response: JSON.parse(row.response_json) as unknown } : null;
  }

  async recordTurnRequest(projectId: string, idempotencyKey: string, requestHash: string, response: unknown): Promise<void> {
    await this.write(projectId, (db) =>
      db
        .insertInto('agent_turn_requests')
        .values({
          project_id: projectId,
          idempotency_key: idempotencyKey,
          request_hash: requestHash,
          response_json: JSON.stringify(response),
          created_at: this.clock.nowMs(),
        })
        .onConflict((conflict) => conflict.columns(['project_id', 'idempotency_key']).doNothing())
        .execute(),
    );
  }
}
