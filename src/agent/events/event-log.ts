/**
 * The SQL side of the project event log. Appends are group-committed: every append issued while a commit is
 * running joins the next transaction, so a burst of notifications costs a few commits instead of one each.
 * Sequence numbers are assigned inside that transaction from a per-project cache (loaded from the table on
 * first use); the (project_id, seq) primary key turns a stale cache into a failed insert, never a duplicate.
 * Committed events are handed to `onCommitted` in sequence order, after the commit.
 *
 * An event commit does not wait for the disk (`storage.relaxedTransaction`): on SQLite it commits with
 * synchronous=NORMAL (WAL: durable against
 * a crash of the process, synced with the next commit that moves money or the next checkpoint), on PostgreSQL with
 * `synchronous_commit = off`. Events narrate what the app-server did (its own thread files keep the conversation);
 * an fsync per burst stalled the event loop on SQLite and delayed every frame behind it.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.js';
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { WriteFence } from '../../scale/fence.js';
import type { ProjectEvent } from './types.js';

const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_.:/-]{1,100}$/;
/** Appends per transaction; 5 bound values each stays far below both dialects' parameter limits. */
const BATCH_SIZE_MAX = 500;
const PRUNE_DELAY_MS = 1_000;

interface PendingAppend {
  projectId: string;
  type: string;
  dataJson: string;
  resolve(seq: number): void;
  reject(error: unknown): void;
}

export interface EventLogOptions {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** Newest events kept per project. */
  retention: number;
  onCommitted(events: ProjectEvent[]): void;
  /** Scale-out: refuses appends of a node that no longer holds the customer's lease (checked in the transaction). */
  fence?: WriteFence;
}

export class SqlEventLog {
  private pending: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private readonly lastSeq = new Map<string, number>();
  private readonly dirtyProjects = new Set<string>();
  private pruneTimer: NodeJS.Timeout | null = null;
  private pruning: Promise<void> = Promise.resolve();
  /** Transactions committed; lets tests and the bench see that bursts are grouped. */
  commits = 0;

  constructor(private readonly options: EventLogOptions) {}

  append(projectId: string, type: string, data: unknown): Promise<number> {
    if (!EVENT_TYPE_PATTERN.test(type)) return Promise.reject(new TypeError(`invalid event type "${type}"`));
    const dataJson = JSON.stringify(data) ?? 'null';
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ projectId, type, dataJson, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Events after `afterSeq`, oldest first. */
  async readAfter(projectId: string, afterSeq: number, limit: number): Promise<ProjectEvent[]> {
    const rows = await this.options.storage.db
      .selectFrom('project_events')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ projectId: row.project_id, seq: row.seq, type: row.type, dataJson: row.data, createdAt: row.created_at }));
  }

  /** The project's newest logged event, read from the table (not from this node's cache). */
  async newest(projectId: string): Promise<ProjectEvent | null> {
    const row = await this.options.storage.db
      .selectFrom('project_events')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { projectId: row.project_id, seq: row.seq, type: row.type, dataJson: row.data, createdAt: row.created_at } : null;
  }

  /** The newest sequence number of the project (0 when it has no events). */
  async latestSeq(projectId: string): Promise<number> {
    const cached = this.lastSeq.get(projectId);
    return cached ?? (await maxSeq(this.options.storage.db, projectId));
  }

  /**
   * Events `fromSeq`..`toSeq` still kept, oldest first; at most the newest `limit` of them (a relay reference
   * read back).
   */
  async readRange(projectId: string, fromSeq: number, toSeq: number, limit: number): Promise<ProjectEvent[]> {
    const rows = await this.options.storage.db
      .selectFrom('project_events')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('seq', '>=', fromSeq)
      .where('seq', '<=', toSeq)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows
      .reverse()
      .map((row) => ({ projectId: row.project_id, seq: row.seq, type: row.type, dataJson: row.data, createdAt: row.created_at }));
  }

  /**
   * Another node appended to this project (a relay message said so): the cached sequence is dropped, and the next
   * append here reads the newest one from the table. What a message claims never becomes a sequence number.
   */
  forgetSeq(projectId: string): void {
    this.lastSeq.delete(projectId);
  }

  /** Deletes events beyond retention for every project appended to since the last prune. */
  prune(): Promise<void> {
    if (this.pruneTimer) clearTimeout(this.pruneTimer);
    this.pruneTimer = null;
    this.pruning = this.pruning.then(() => this.pruneDirty());
    return this.pruning;
  }

  /** Waits for queued appends and the running prune. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.prune();
  }

  private async flushLoop(): Promise<void> {
    // Let every append issued in this tick join the first transaction.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, BATCH_SIZE_MAX);
      try {
        await this.commit(batch);
      } catch {
        // One bad append (unknown project, a sequence taken elsewhere) must not fail its neighbours.
        for (const item of batch) this.lastSeq.delete(item.projectId);
        for (const item of batch) await this.commit([item]).catch((error: unknown) => item.reject(error));
      }
    }
    this.flushing = null;
  }

  private async commit(batch: PendingAppend[]): Promise<void> {
    const createdAt = this.options.clock.nowMs();
    const { events, next } = await this.options.storage.relaxedTransaction(async (trx) => {
      if (this.options.fence)
        await this.options.fence.check(
          trx,
          batch.map((item) => item.projectId),
        );
      const next = new Map<string, number>();
      const events: ProjectEvent[] = [];
      for (const item of batch) {
        const previous = next.get(item.projectId) ?? this.lastSeq.get(item.projectId) ?? (await maxSeq(trx, item.projectId));
        next.set(item.projectId, previous + 1);
        events.push({ projectId: item.projectId, seq: previous + 1, type: item.type, dataJson: item.dataJson, createdAt });
      }
      await trx
        .insertInto('project_events')
        .values(
          events.map((event) => ({
            project_id: event.projectId,
            seq: event.seq,
            type: event.type,
            data: event.dataJson,
            created_at: createdAt,
          })),
        )
        .execute();
      return { events, next };
    });
    this.commits += 1;
    for (const [projectId, seq] of next) {
      this.lastSeq.set(projectId, seq);
      this.dirtyProjects.add(projectId);
    }
    batch.forEach((item, index) => item.resolve(events[index]!.seq));
    this.schedulePrune();
    try {
      this.options.onCommitted(events);
    } catch (error) {
      // The events are committed: a fan-out failure must never turn into a retried (duplicated) append.
      this.options.logger.error({ err: error }, 'event fan-out failed');
    }
  }

  private schedulePrune(): void {
    if (this.pruneTimer) return;
    this.pruneTimer = setTimeout(() => {
      this.pruneTimer = null;
      this.prune().catch((error: unknown) => this.options.logger.warn({ err: error }, 'event log prune failed'));
    }, PRUNE_DELAY_MS);
    this.pruneTimer.unref();
  }

  private async pruneDirty(): Promise<void> {
    const projects = [...this.dirtyProjects];
    this.dirtyProjects.clear();
    for (const projectId of projects) {
      const latest = this.lastSeq.get(projectId);
      if (latest === undefined || latest <= this.options.retention) continue;
      await this.options.storage.db
        .deleteFrom('project_events')
        .where('project_id', '=', projectId)
        .where('seq', '<=', latest - this.options.retention)
        .execute();
    }
  }
}

async function maxSeq(executor: Kysely<Database> | Transaction<Database>, projectId: string): Promise<number> {
  const row = await executor
    .selectFrom('project_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row?.seq === null || row?.seq === undefined ? 0 : Number(row.seq);
}
