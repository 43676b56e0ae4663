/**
 * Approval broker: an app-server approval request (a JSON-RPC request from the server) becomes an approval
 * resource with our own id and the lifecycle pending → resolved | cancelled | expired | lost. Every transition
 * is one conditional update (only a pending row moves), so a second resolve sees the recorded outcome, and is
 * appended to the project's event log. `resolved` answers with the client's decision and `expired` with
 * `decline` (the app-server never times out an approval itself); a cancelled one is answered `cancel`, which
 * the app-server ignores because it closed the dialog already, and a lost one has no process left to answer.
 * With several nodes every write is fenced like the event log: a node that no longer holds the customer's lease
 * cannot record, decide or close an approval (the new holder's pending dialogs stay its own).
 */
import type { Logger } from 'pino';
import { AppError, notFound } from '../kernel/errors.js';
import type { Clock, TimerHandle } from '../kernel/clock.js';
import { newId } from '../kernel/ids.js';
import type { Storage } from '../storage/database.js';
import { FencedWriteError, type WriteFence } from '../scale/fence.js';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AgentApprovalsTable, ApprovalStatus } from '../storage/tables/agent.js';
import type { ProjectEventSink } from './event-sink.js';

export const APPROVAL_DECISIONS = ['accept', 'acceptForSession', 'decline', 'cancel'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export interface ApprovalContext {
  projectId: string;
  customerId: number;
  kind: 'commandExecution' | 'fileChange';
  serverRequestId: string | number;
  params: Record<string, unknown> & { threadId: string; turnId: string; itemId: string };
  /** For file changes: the `changes` of the preceding item/started (the request itself carries no diff). */
  changes?: unknown;
}

interface Waiter {
  id: string;
  customerId: number;
  threadId: string;
  turnId: string;
  serverKey: string;
  answer(reply: { decision: string }): void;
  timer: TimerHandle;
}

/** An approval whose row is still being inserted, and how it ended if its turn or process ended meanwhile. */
interface Inserting {
  customerId: number;
  threadId: string;
  turnId: string;
  serverKey: string;
  ended: 'cancelled' | 'lost' | null;
}

export type ApprovalView = ReturnType<typeof approvalView>;

export function approvalView(row: AgentApprovalsTable) {
  const params = JSON.parse(row.params_json) as Record<string, unknown>;
  return {
    request_id: row.id,
    kind: row.kind,
    status: row.status,
    decision: row.decision === null ? null : (JSON.parse(row.decision) as unknown),
    thread_id: row.thread_id,
    turn_id: row.turn_id,
    item_id: row.item_id,
    command: params.command ?? null,
    cwd: params.cwd ?? null,
    reason: params.reason ?? null,
    changes: params.changes ?? null,
    available_decisions: params.availableDecisions ?? null,
    created_at: Number(row.created_at),
    expires_at: Number(row.expires_at),
    finished_at: row.finished_at === null ? null : Number(row.finished_at),
  };
}

export class ApprovalBroker {
  private readonly waiters = new Map<string, Waiter>();
  private readonly byServerKey = new Map<string, string>();
  private readonly inserting = new Map<string, Inserting>();

  constructor(
    private readonly storage: Storage,
    private readonly events: ProjectEventSink,
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    /** Scale-out: writes of a node that lost the customer's lease are refused. */
    private readonly fence?: WriteFence,
  ) {}

  /** Runs a write of one project's approvals, fenced in its own transaction when several nodes share the table. */
  private write<T>(
    projectId: string | ((db: Kysely<Database>) => Promise<string | undefined>),
    work: (db: Kysely<Database>) => Promise<T>,
  ): Promise<T> {
    const fence = this.fence;
    if (!fence) return work(this.storage.db);
    return this.storage.db.transaction().execute(async (trx) => {
      const id = typeof projectId === 'string' ? projectId : await projectId(trx);
      if (id !== undefined) await fence.check(trx, [id]);
      return work(trx);
    });
  }

  /** Records a new pending approval and resolves with the reply for the app-server once it is decided. */
  async request(context: ApprovalContext): Promise<{ decision: string }> {
    const now = this.clock.nowMs();
    const { params } = context;
    const row: AgentApprovalsTable = {
      id: newId('apr'),
      project_id: context.projectId,
      customer_id: context.customerId,
      thread_id: params.threadId,
      turn_id: params.turnId,
      item_id: params.itemId,
      kind: context.kind,
      server_request_id: JSON.stringify(context.serverRequestId),
      params_json: JSON.stringify(context.changes === undefined ? params : { ...params, changes: context.changes }),
      status: 'pending',
      decision: null,
      created_at: now,
      expires_at: now + this.timeoutMs,
      finished_at: null,
    };
    const serverKey = `${context.customerId}:${row.server_request_id}`;
    // Until the waiter below exists, the end of the turn, of the dialog or of the process is noted here.
    const inserting: Inserting = {
      customerId: context.customerId,
      threadId: params.threadId,
      turnId: params.turnId,
      serverKey,
      ended: null,
    };
    this.inserting.set(row.id, inserting);
    try {
      await this.write(context.projectId, (db) => db.insertInto('agent_approvals').values(row).execute());
    } finally {
      this.inserting.delete(row.id);
    }
    // Expires at the recorded `expires_at`, however long the insert took.
    const expiresInMs = row.expires_at - this.clock.nowMs();
    const reply = new Promise<{ decision: string }>((resolve) => {
      const timer = this.clock.setTimeout(() => void this.finish(row.id, 'expired', 'decline').catch(() => undefined), expiresInMs).unref();
      this.waiters.set(row.id, {
        id: row.id,
        customerId: context.customerId,
        threadId: params.threadId,
        turnId: params.turnId,
        serverKey,
        answer: resolve,
        timer,
      });
      this.byServerKey.set(serverKey, row.id);
    });
    await this.events.append(context.projectId, 'approval/requested', approvalView(row));
    if (inserting.ended) await this.finish(row.id, inserting.ended, null);
    return reply;
  }

  /** Applies a client's decision; 404 when unknown to the project, 409 (with the outcome) when already decided. */
  async resolve(projectId: string, requestId: string, decision: ApprovalDecision): Promise<ApprovalView> {
    const existing = await this.find(projectId, requestId);
    if (!existing) throw notFound('Approval request');
    const finished = await this.finish(requestId, 'resolved', decision);
    if (finished) return finished;
    const current = (await this.find(projectId, requestId))!;
    throw new AppError('CONFLICT', `Approval request is already ${current.status}`, { details: { approval: approvalView(current) } });
  }

  async list(projectId: string, options: { threadId?: string; status?: ApprovalStatus } = {}): Promise<ApprovalView[]> {
    let query = this.storage.db.selectFrom('agent_approvals').selectAll().where('project_id', '=', projectId);
    if (options.threadId) query = query.where('thread_id', '=', options.threadId);
    if (options.status) query = query.where('status', '=', options.status);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(approvalView);
  }

  /** The turn ended (completed, failed or interrupted): its open approvals are closed. */
  async cancelForTurn(threadId: string, turnId: string): Promise<void> {
    for (const entry of this.inserting.values()) if (entry.threadId === threadId && entry.turnId === turnId) entry.ended ??= 'cancelled';
    const ids = [...this.waiters.values()]
      .filter((waiter) => waiter.threadId === threadId && waiter.turnId === turnId)
      .map((waiter) => waiter.id);
    for (const id of ids) await this.finish(id, 'cancelled', null);
  }

  /** `serverRequest/resolved`: the app-server closed the dialog itself. No-op for approvals already decided. */
  async cancelByServerRequest(customerId: number, serverRequestId: unknown): Promise<void> {
    const serverKey = `${customerId}:${JSON.stringify(serverRequestId)}`;
    for (const entry of this.inserting.values()) if (entry.serverKey === serverKey) entry.ended ??= 'cancelled';
    const id = this.byServerKey.get(serverKey);
    if (id) await this.finish(id, 'cancelled', null);
  }

  /** The customer's app-server died: nothing can answer its requests any more. */
  async markLostForCustomer(customerId: number): Promise<void> {
    for (const entry of this.inserting.values()) if (entry.customerId === customerId) entry.ended ??= 'lost';
    const rows = await this.storage.db
      .selectFrom('agent_approvals')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'pending')
      .execute();
    for (const row of rows) await this.finish(row.id, 'lost', null);
  }

  /**
   * This node lost the customer's lease: its app-server stops, so the dialogs it had open here end. Each is marked
   * lost where the fence still allows it; otherwise it is only let go here (the new holder marks its row lost).
   */
  async abandonCustomer(customerId: number): Promise<void> {
    for (const entry of this.inserting.values()) if (entry.customerId === customerId) entry.ended ??= 'lost';
    for (const waiter of [...this.waiters.values()].filter((entry) => entry.customerId === customerId)) {
      try {
        await this.finish(waiter.id, 'lost', null);
      } catch (error) {
        if (!(error instanceof FencedWriteError))
          this.logger.warn({ err: error, approvalId: waiter.id }, 'marking an approval lost failed');
      }
      this.forget(waiter.id);
    }
  }

  /** At service start: every pending approval belonged to an app-server of the previous service process. */
  async markAllPendingLost(): Promise<void> {
    const rows = await this.storage.db.selectFrom('agent_approvals').select('id').where('status', '=', 'pending').execute();
    for (const row of rows) await this.finish(row.id, 'lost', null);
  }

  pendingCount(customerId: number): number {
    let count = 0;
    for (const waiter of this.waiters.values()) if (waiter.customerId === customerId) count += 1;
    return count;
  }

  close(): void {
    for (const waiter of this.waiters.values()) this.clock.clearTimeout(waiter.timer);
    this.waiters.clear();
    this.byServerKey.clear();
  }

  private async find(projectId: string, requestId: string): Promise<AgentApprovalsTable | undefined> {
    return this.storage.db
      .selectFrom('agent_approvals')
      .selectAll()
      .where('id', '=', requestId)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  }

  /** Moves a pending approval to its final state; null when it was no longer pending. */
  private async finish(id: string, status: Exclude<ApprovalStatus, 'pending'>, decision: string | null): Promise<ApprovalView | null> {
    const decisionJson = decision === null ? null : JSON.stringify(decision);
    const projectOf = async (db: Kysely<Database>) =>
      (await db.selectFrom('agent_approvals').select('project_id').where('id', '=', id).executeTakeFirst())?.project_id;
    const result = await this.write(projectOf, (db) =>
      db
        .updateTable('agent_approvals')
        .set({ status, decision: decisionJson, finished_at: this.clock.nowMs() })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst(),
    );
    if (Number(result.numUpdatedRows) !== 1) return null;
    const row = await this.storage.db.selectFrom('agent_approvals').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const view = approvalView(row);
    await this.events.append(row.project_id, `approval/${status}`, view);
    this.forget(id, decision ?? 'cancel');
    this.logger.info({ approvalId: id, status, decision }, 'approval finished');
    return view;
  }

  /** Lets the approval's waiter go (answering the app-server with `decision`, which a stopped one never reads). */
  private forget(id: string, decision = 'cancel'): void {
    const waiter = this.waiters.get(id);
    if (!waiter) return;
    this.clock.clearTimeout(waiter.timer);
    this.waiters.delete(id);
    this.byServerKey.delete(waiter.serverKey);
    waiter.answer({ decision });
  }
}
