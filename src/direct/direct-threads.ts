/**
 * Live state of direct threads and the routing of their app-server traffic: every notification of a direct
 * thread is appended to the customer's direct event stream (one durable stream per customer in the project
 * event log), approval requests go through the agent's approval broker under that stream, and one turn runs
 * per thread at a time. The thread router hands this class the traffic of the threads it routed here only.
 */
import type { Logger } from 'pino';
import type { JsonRpcNotification, JsonRpcServerRequest } from '../appserver/connection.js';
import type { Thread } from '../appserver/protocol.js';
import type { ManagedAppServer } from '../appserver/supervisor.js';
import type { ApprovalBroker } from '../agent/approvals.js';
import type { ProjectEventSink } from '../agent/event-sink.js';
import type { ThreadOwner, ThreadRouter } from '../agent/thread-router.js';
import type { Principal } from '../accounts/principal.js';
import type { TurnCredential, TurnPrincipals } from '../accounts/turn-principals.js';
import { tracedApproval, turnNotification } from '../telemetry/index.js';
import { applyNotification, endTurn, interruptedTurn, ThreadTurns, type TurnState } from '../agent/thread-state.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { DirectThreadOwners } from './thread-owners.js';

const STREAM_PREFIX = 'direct-';

/** The event-log stream of a customer's direct threads (never a managed project id, which is `prj_…`). */
export function directStreamId(customerId: number): string {
  return `${STREAM_PREFIX}${customerId}`;
}

export interface DirectThreadsDeps {
  storage: Storage;
  clock: Clock;
  events: ProjectEventSink;
  approvals: ApprovalBroker;
  owners: DirectThreadOwners;
  /** Live subscribers of an event-log stream on this node. */
  subscriberCount(streamId: string): number;
  logger: Logger;
  turnPrincipals: TurnPrincipals;
  /** Where the direct threads' app-server traffic is routed from. */
  router: ThreadRouter;
}

export class DirectThreads implements ThreadOwner {
  private readonly turns: ThreadTurns<TurnState>;
  /** file-change item id → its changes (approval requests carry no diff). */
  private readonly fileChanges = new Map<string, unknown>();
  private readonly streams = new Map<number, Promise<void>>();
  /** The model each thread runs on, as its last start or resume (route or passthrough) reported it. */
  private readonly models = new Map<string, string>();

  constructor(private readonly deps: DirectThreadsDeps) {
    this.turns = new ThreadTurns<TurnState>(deps.turnPrincipals);
  }

  /**
   * Makes the customer's direct stream exist: the event log keys streams by a row of the projects table, so
   * the stream has one (workspace: the customer's root; it is not a managed project and is never listed).
   */
  ensureStream(customerId: number, workspaceRoot: string): Promise<void> {
    let ready = this.streams.get(customerId);
    if (!ready) {
      ready = this.deps.storage.db
        .insertInto('projects')
        .values({
          id: directStreamId(customerId),
          customer_id: customerId,
          name: 'Direct threads',
          workspace_dir: workspaceRoot,
          created_at: this.deps.clock.nowMs(),
        })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute()
        .then(() => undefined);
      ready.catch(() => this.streams.delete(customerId));
      this.streams.set(customerId, ready);
    }
    return ready;
  }

  /** Routes the thread's traffic to the customer's direct stream from now on. */
  async remember(threadId: string, customerId: number, workspaceRoot: string): Promise<void> {
    await this.ensureStream(customerId, workspaceRoot);
    this.turns.remember(threadId, { customerId });
    this.deps.router.route(threadId, customerId, this);
  }

  /** A thread started, forked or resumed for the customer: owner record, live routing, loaded on its app-server. */
  async adopt(server: ManagedAppServer, customerId: number, thread: Thread, workspaceRoot: string, started: boolean): Promise<void> {
    await this.deps.owners.record(thread.id, customerId, thread.cwd);
    await this.remember(thread.id, customerId, workspaceRoot);
    server.loadedThreads.add(thread.id);
    if (started) await this.append(customerId, 'thread/started', { thread });
  }

  noteModel(threadId: string, model: string): void {
    this.models.set(threadId, model);
  }

  modelOf(threadId: string): string | undefined {
    return this.models.get(threadId);
  }

  /** Stops routing a thread that turned out not to exist (ids come from callers). */
  forget(threadId: string): void {
    if (this.turns.forgetIdle(threadId)) this.deps.router.unroute(threadId, this);
  }

  knows(threadId: string, customerId: number): boolean {
    return this.turns.get(threadId)?.customerId === customerId;
  }

  append(customerId: number, type: string, data: unknown): Promise<void> {
    return this.deps.events.append(directStreamId(customerId), type, data);
  }

  activeTurn(threadId: string): string | null {
    return this.turns.activeTurn(threadId);
  }

  /** Runs `start` as the thread's one turn start; 409 while a turn runs or starts. */
  startTurn<T extends { turn: { id: string } }>(
    threadId: string,
    start: (credential: TurnCredential) => Promise<T>,
    startedBy?: Principal,
  ): Promise<T> {
    return this.turns.start(threadId, 'A turn is already running on this thread; interrupt it or wait for it to finish', start, startedBy);
  }

  // ---- app-server traffic of direct threads (ThreadOwner) ----------------------------------------------------

  onNotification(customerId: number, notification: JsonRpcNotification): void {
    const params = (notification.params ?? {}) as Record<string, unknown>;
    const threadId = (params.threadId as string | undefined) ?? (params.thread as { id?: string } | undefined)?.id;
    const state = threadId ? this.turns.get(threadId) : undefined;
    // thread/started is appended by whoever started the thread, once the thread is known to be direct.
    if (!state || state.customerId !== customerId || notification.method === 'thread/started') return;
    void this.append(customerId, notification.method, params);
    this.track(state, customerId, notification.method, params);
  }

  async onServerRequest(customerId: number, request: JsonRpcServerRequest): Promise<unknown> {
    const params = (request.params ?? {}) as Record<string, unknown> & { threadId: string; turnId: string; itemId: string };
    const state = this.turns.get(params.threadId);
    const kind =
      request.method === 'item/commandExecution/requestApproval'
        ? 'commandExecution'
        : request.method === 'item/fileChange/requestApproval'
          ? 'fileChange'
          : null;
    if (!state || state.customerId !== customerId || kind === null) {
      // Requests we do not broker (user input, dynamic tools, elicitation) are refused rather than left hanging.
      throw new Error(`${request.method} is not supported by this service`);
    }
    return tracedApproval(params.threadId, kind, () =>
      this.deps.approvals.request({
        projectId: directStreamId(customerId),
        customerId,
        kind,
        serverRequestId: request.id,
        params,
        changes: kind === 'fileChange' ? this.fileChanges.get(params.itemId) : undefined,
      }),
    );
  }

  onCrash(customerId: number): void {
    const ended = this.turns.running(customerId);
    this.turns.crashed(customerId);
    if (this.streams.has(customerId) || ended.length > 0) void this.endAll(customerId, 'app-server exited unexpectedly', ended);
  }

  /** Another node served the customer and died: whatever turn ran there is over. */
  onNodeLost(customerId: number): void {
    this.onCrash(customerId);
  }

  runningTurns(customerId: number): { threadId: string; turnId: string }[] {
    return this.turns.running(customerId);
  }

  refuseTurnStarts(): void {
    this.turns.refuseStarts();
  }

  async onStopping(customerId: number, reason: string): Promise<void> {
    const ended = this.turns.running(customerId);
    this.turns.crashed(customerId);
    if (ended.length > 0) await this.endAll(customerId, reason, ended);
  }

  /** The turns that ran end, each with its own `turn/completed` (interrupted) after the `runtime/exited` saying why. */
  private async endAll(customerId: number, reason: string, ended: { threadId: string; turnId: string }[]): Promise<void> {
    if (ended.length === 0) return this.append(customerId, 'runtime/exited', { reason });
    for (const turn of ended) {
      const state = this.turns.get(turn.threadId);
      if (state) endTurn(state, turn.turnId);
      await this.append(customerId, 'runtime/exited', { reason, thread_id: turn.threadId, turn_id: turn.turnId });
      await this.append(customerId, 'turn/completed', interruptedTurn(turn.threadId, turn.turnId));
      turnNotification(turn.threadId, 'turn/completed', interruptedTurn(turn.threadId, turn.turnId));
    }
  }

  /** A running turn, or a client listening to the direct events (as a project subscriber holds the process). */
  isBusy(customerId: number): boolean {
    return this.turns.isBusy(customerId) || this.deps.subscriberCount(directStreamId(customerId)) > 0;
  }

  private track(state: TurnState, customerId: number, method: string, params: Record<string, unknown>): void {
    const change = applyNotification(state, this.fileChanges, method, params);
    if (typeof params.threadId === 'string') turnNotification(params.threadId, method, params);
    if (change.endedTurnId) void this.deps.approvals.cancelForTurn(params.threadId as string, change.endedTurnId);
    if (change.closedServerRequest !== undefined) void this.deps.approvals.cancelByServerRequest(customerId, change.closedServerRequest);
  }
}
