/**
 * Managed projects on top of the per-customer app-servers: open (always the project's one thread, resumed after
 * any restart), turns (one at a time per thread), interrupts, and the app-server traffic of project threads, which
 * the thread router (thread-router.ts) hands over. Every notification of a project's thread is appended to the
 * project's event log before any state that clients can observe changes hands.
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import { AppServerError } from '../appserver/errors.js';
import { agentCall, mapAppServerError } from './appserver-errors.js';

export { agentCall, mapAppServerError } from './appserver-errors.js';
import type { JsonRpcNotification, JsonRpcServerRequest } from '../appserver/connection.js';
import type { ManagedAppServer } from '../appserver/supervisor.js';
import type { Thread, TurnStartParams } from '../appserver/protocol.js';
import { AppError } from '../kernel/errors.js';
import type { ApprovalBroker } from './approvals.js';
import type { ProjectEventSink } from './event-sink.js';
import type { Project, ProjectStore } from './projects/types.js';
import type { ThreadRepository } from './thread-repository.js';
import type { TurnPrincipals } from '../accounts/turn-principals.js';
import { turnPermissions } from './permissions.js';
import type { TurnPolicy } from './turn-policy.js';
import { tracedApproval, turnNotification } from '../telemetry/index.js';
import { applyNotification, endTurn, interruptedTurn, threadView, ThreadTurns, type ThreadState } from './thread-state.js';
import { OpenItems, settledTurns } from './open-items.js';
import { toUserInput, type TurnRequest } from './turn-input.js';
import type { TurnRules } from './turn-rules.js';
import { threadIdOf, type ThreadOwner, type ThreadRouter } from './thread-router.js';
import { TurnIdempotency } from './turn-idempotency.js';
import { forLandlockMode, turnDeniesNetwork, withoutNetwork, type TurnNetworkGate } from './turn-network.js';
import { confineWritableRoots } from './writable-roots.js';

export interface ThreadDefaults {
  model: string;
  reasoningEffort: string;
  webSearch: string;
  approvalPolicy: string;
  sandbox: string;
}

/** The defaults a customer chose for their new threads and turns (their toolbox), already bounded by the operator's. */
export interface CustomerAgentDefaults {
  webSearch: string;
  reasoningEffort: string;
  approvalPolicy: string;
}

export interface RuntimeDeps {
  projects: ProjectStore;
  threads: ThreadRepository;
  approvals: ApprovalBroker;
  events: ProjectEventSink;
  acquire(customerId: number): Promise<ManagedAppServer>;
  /** The customer's running app-server, if any (never starts one). */
  peek(customerId: number): ManagedAppServer | null;
  defaults(): ThreadDefaults;
  customerDefaults?: (customerId: number) => Promise<CustomerAgentDefaults>;
  logger: Logger;
  turnPrincipals: TurnPrincipals;
  policy: TurnPolicy;
  /** The model, effort and approval checks every surface shares. */
  rules: TurnRules;
  /** Where the project threads' app-server traffic is routed from. */
  router: ThreadRouter;
  /** Keeps the customer's egress closed while a turn without network access runs (sandboxed agents only). */
  network?: TurnNetworkGate;
  /** Codex's command sandbox runs in Landlock mode (inside the service's seccomp filter): see `forLandlockMode`. */
  landlockMode?: boolean;
  /** Live event-stream subscribers of a project (they keep the customer's app-server up). */
  subscriberCount?: (projectId: string) => number;
}

export class ProjectRuntime implements ThreadOwner {
  private readonly turns: ThreadTurns<ThreadState>;
  /** file-change item id → its changes (approval requests carry no diff). */
  private readonly fileChanges = new Map<string, unknown>();
  /** Items started and not completed, per thread: each gets a final state when its turn ends. */
  private readonly openItems = new OpenItems();
  /** Projects being deleted on this node: no turn starts in them meanwhile. */
  private readonly deleting = new Set<string>();
  private readonly opening = new Map<string, Promise<{ server: ManagedAppServer; threadId: string; created: boolean }>>();
  private readonly idempotentStarts: TurnIdempotency<Awaited<ReturnType<ProjectRuntime['startTurn']>>>;

  constructor(private readonly deps: RuntimeDeps) {
    this.turns = new ThreadTurns<ThreadState>(deps.turnPrincipals);
    this.idempotentStarts = new TurnIdempotency(deps.threads);
  }

  // ---- app-server traffic of project threads (ThreadOwner) ---------------------------------------------------

  onNotification(customerId: number, notification: JsonRpcNotification): void {
    const params = (notification.params ?? {}) as Record<string, unknown>;
    const threadId = threadIdOf(params);
    const state = threadId ? this.turns.get(threadId) : undefined;
    // thread/started is appended by `load` itself, which knows the project before the notification can be routed.
    if (!state || state.customerId !== customerId || notification.method === 'thread/started') return;
    // An item the turn left open (a command whose approval an interrupt cancelled) is logged as ended before the turn.
    if (notification.method === 'turn/completed') this.closeOpenItems(state, threadId!, params.turn as { id?: string; status?: string });
    void this.deps.events.append(state.projectId, notification.method, params);
    this.openItems.track(threadId!, notification.method, params);
    this.track(state, notification.method, params);
    turnNotification(threadId!, notification.method, params);
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
        projectId: state.projectId,
        customerId,
        kind,
        serverRequestId: request.id,
        params,
        changes: kind === 'fileChange' ? this.fileChanges.get(params.itemId) : undefined,
      }),
    );
  }

  private track(state: ThreadState, method: string, params: Record<string, unknown>): void {
    const change = applyNotification(state, this.fileChanges, method, params);
    if (change.endedTurnId) void this.deps.approvals.cancelForTurn(params.threadId as string, change.endedTurnId);
    if (change.closedServerRequest !== undefined)
      void this.deps.approvals.cancelByServerRequest(state.customerId, change.closedServerRequest);
  }

  private closeOpenItems(state: ThreadState, threadId: string, turn: { id?: string; status?: string } | undefined): void {
    if (!turn?.id) return;
    for (const closed of this.openItems.close(threadId, turn.id, turn.status))
      void this.deps.events.append(state.projectId, 'item/completed', closed);
  }

  /**
   * The process died: running turns are over. Each ends with its own `turn/completed` (interrupted, its turn id),
   * as if the app-server had said so, and the project's log says why (`runtime/exited`).
   */
  onCrash(customerId: number): void {
    void this.endAll(customerId, 'app-server exited unexpectedly', true);
  }

  /** Ends every turn of the customer's project threads on this node; `runtime/exited` goes to idle projects too on a crash. */
  private async endAll(customerId: number, reason: string, crashed: boolean): Promise<void> {
    const running = new Map(this.turns.running(customerId).map((turn) => [turn.threadId, turn.turnId]));
    const states = this.turns.crashed(customerId);
    await Promise.all(
      states.map(async (state) => {
        const threadId = [...running.keys()].find((id) => this.turns.get(id) === state);
        const turnId = threadId === undefined ? undefined : running.get(threadId)!;
        if (threadId === undefined || turnId === undefined) {
          if (crashed) await this.deps.events.append(state.projectId, 'runtime/exited', { reason });
          return;
        }
        // Its pending approvals are marked lost by the crash handling (or the stop), not cancelled here.
        endTurn(state, turnId);
        await this.deps.events.append(state.projectId, 'runtime/exited', { reason, thread_id: threadId, turn_id: turnId });
        this.closeOpenItems(state, threadId, { id: turnId, status: 'interrupted' });
        await this.deps.events.append(state.projectId, 'turn/completed', interruptedTurn(threadId, turnId));
        turnNotification(threadId, 'turn/completed', interruptedTurn(threadId, turnId));
      }),
    );
  }

  /**
   * Another node served the customer and stopped without releasing its lease (it died): whatever turn ran there
   * is lost. Each of the customer's project threads is told; the thread itself is resumed on its next use here.
   */
  async onNodeLost(customerId: number, node: string): Promise<void> {
    for (const record of await this.deps.threads.ofCustomer(customerId)) {
      await this.deps.events.append(record.projectId, 'runtime/exited', {
        reason: 'the node running this project stopped',
        node,
        thread_id: record.threadId,
      });
    }
  }

  runningTurns(customerId: number): { threadId: string; turnId: string }[] {
    return this.turns.running(customerId);
  }

  refuseTurnStarts(): void {
    this.turns.refuseStarts();
  }

  async onStopping(customerId: number, reason: string): Promise<void> {
    await this.endAll(customerId, reason, false);
  }

  /** This node lost the customer's lease: it forgets their running turns (another node serves them now). */
  leaseLost(customerId: number): void {
    this.turns.crashed(customerId);
  }

  /** The new process is up: load again every thread the dead one had loaded. */
  async onRestart(server: ManagedAppServer, threadIds: string[]): Promise<void> {
    for (const threadId of threadIds) {
      try {
        await server.call('thread/resume', { threadId });
        server.loadedThreads.add(threadId);
        const state = this.turns.get(threadId);
        if (state) void this.deps.events.append(state.projectId, 'runtime/resumed', { threadId });
      } catch (error) {
        this.deps.logger.warn({ err: error, threadId }, 'could not resume thread after restart');
      }
    }
  }

  /** A turn runs or starts on one of the customer's project threads. */
  isBusy(customerId: number): boolean {
    return this.turns.isBusy(customerId);
  }

  /** Whether a turn runs or starts in the project (deleting the project now would strand it). */
  isProjectBusy(customerId: number, projectId: string): boolean {
    const states = this.turns.ofCustomer(customerId).filter((state) => state.projectId === projectId);
    return states.some((state) => state.activeTurnId !== null || state.starting);
  }

  projectsOf(customerId: number): string[] {
    return this.turns.ofCustomer(customerId).map((state) => state.projectId);
  }

  /** Live SSE subscribers of the customer's projects keep its app-server up. */
  hasListeners(customerId: number): boolean {
    const count = this.deps.subscriberCount;
    return count !== undefined && this.projectsOf(customerId).some((projectId) => count(projectId) > 0);
  }

  // ---- project operations -------------------------------------------------------------------------------

  /**
   * Opens the project: resumes its thread (or starts the first one), or with `new_thread` starts a fresh one that
   * becomes the project's thread whatever state the previous one is in; optionally starts a turn.
   */
  async open(principal: Principal, projectId: string, request: { prompt?: string; new_thread?: boolean } = {}) {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    if (request.new_thread === true && this.isProjectBusy(project.customerId, project.id)) {
      throw new AppError(
        'CONFLICT',
        'A turn is running on this project; interrupt it or wait for it to finish before starting a new thread',
      );
    }
    const { server, threadId, created } = await this.ensureLoaded(project, request.new_thread === true);
    const read = await server.call('thread/read', { threadId, includeTurns: false });
    const turn = request.prompt === undefined ? null : await this.startTurn(principal, projectId, { prompt: request.prompt });
    return { project_id: project.id, thread: this.threadView(read.thread), resumed: !created, turn };
  }

  async threadDetail(principal: Principal, projectId: string, includeTurns: boolean) {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    const record = await this.deps.threads.forProject(project.id);
    if (!record) return { project, thread: null };
    const { server, threadId } = await this.ensureLoaded(project);
    const read = await server.call('thread/read', { threadId, includeTurns });
    const turns = includeTurns ? { turns: settledTurns(read.thread.turns, this.turns.activeTurn(threadId)) } : {};
    return { project, thread: { ...this.threadView(read.thread), ...turns } };
  }

  async startTurn(principal: Principal, projectId: string, request: TurnRequest) {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    if (this.deleting.has(project.id)) throw new AppError('CONFLICT', 'This project is being deleted');
    await this.deps.policy.check(principal, request.model);
    const input = toUserInput(request);
    const requested = turnPermissions(request);
    const policy = requested.sandboxPolicy;
    // Checked before the app-server is involved, so a refused root starts nothing.
    if (policy?.type === 'workspaceWrite') policy.writableRoots = await confineWritableRoots(project.workspaceDir, policy.writableRoots);
    const permissions = this.deps.landlockMode ? forLandlockMode(requested) : requested;
    const { server, threadId } = await this.ensureLoaded(project);
    // A project thread runs on the default model unless a turn names another.
    const threadModel = this.deps.defaults().model;
    const selection = { model: request.model, effort: request.effort, approvalPolicy: request.approvalPolicy ?? request.approval_policy };
    const checked = await this.deps.rules.check(server, selection, threadModel);
    const defaults = await this.deps.rules.customerDefaults(
      server,
      await this.deps.customerDefaults?.(project.customerId),
      selection,
      threadModel,
    );
    const params: TurnStartParams = { threadId, input, ...defaults, ...checked, ...permissions };
    const conflict = 'A turn is already running on this project; interrupt it or wait for it to finish';
    const start = () =>
      this.turns.start(
        threadId,
        conflict,
        (credential) => {
          // Checked again once this start holds the thread's gate: a delete that began meanwhile wins.
          if (this.deleting.has(project.id)) throw new AppError('CONFLICT', 'This project is being deleted');
          return agentCall(server.call('turn/start', { ...params, responsesapiClientMetadata: credential.metadata }));
        },
        principal,
      );
    const result =
      this.deps.network && turnDeniesNetwork(requested)
        ? await withoutNetwork(this.deps.network, project.customerId, start)
        : await start();
    await this.deps.threads.touch(project.id);
    return { turn_id: result.turn.id, thread_id: threadId, status: result.turn.status };
  }

  /** Turn start under an `Idempotency-Key` (see `TurnIdempotency`). */
  async startTurnOnce(principal: Principal, projectId: string, request: TurnRequest, idempotencyKey: string) {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    return this.idempotentStarts.run(project.id, idempotencyKey, request, () => this.startTurn(principal, projectId, request));
  }

  async interrupt(principal: Principal, projectId: string, turnId: string) {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    const record = await this.deps.threads.forProject(project.id);
    // The app-server does not answer an interrupt of a finished turn until some later turn ends.
    if (!record || this.turns.activeTurn(record.threadId) !== turnId) {
      // A turn the project's thread never had is a 404 like any unknown id; one that finished is a 409.
      if (!record) throw new AppError('NOT_FOUND', 'Turn not found');
      const { server, threadId } = await this.ensureLoaded(project);
      const read = await server.call('thread/read', { threadId, includeTurns: true }).catch(() => null);
      if (!(read?.thread.turns ?? []).some((turn) => turn.id === turnId)) throw new AppError('NOT_FOUND', 'Turn not found');
      throw new AppError('CONFLICT', 'This turn is not running', { details: { turn_id: turnId } });
    }
    const server = await this.deps.acquire(project.customerId);
    await server.call('turn/interrupt', { threadId: record.threadId, turnId });
    return { turn_id: turnId, thread_id: record.threadId, interrupted: true };
  }

  /**
   * The file changes of one turn of the project's thread, as the app-server recorded them (each `fileChange` item's
   * changes: path, kind and a unified diff, or the new content for an added file), in the order they were made.
   */
  async turnChanges(principal: Principal, projectId: string, turnId: string) {
    const { project, thread } = await this.threadDetail(principal, projectId, true);
    const turn = thread?.turns?.find((candidate) => candidate.id === turnId);
    if (!turn) throw new AppError('NOT_FOUND', 'Turn not found');
    const files = turn.items.flatMap((item) =>
      item.type === 'fileChange'
        ? item.changes.map((change) => ({ item_id: item.id, status: item.status, path: change.path, kind: change.kind, diff: change.diff }))
        : [],
    );
    return { project, turn_id: turn.id, status: turn.status, files };
  }

  /**
   * Deletes the project (its thread link, approvals, event log and workspace): 409 while a turn runs or starts on
   * it, and for the workspace of a desktop coder project (deleted through the coder routes, with its database).
   */
  async remove(principal: Principal, projectId: string): Promise<void> {
    const project = await this.deps.projects.requireOwned(principal, projectId);
    if (this.deleting.has(project.id)) throw new AppError('CONFLICT', 'This project is being deleted');
    // Marked first: a turn start that comes in while the checks and the delete run is refused.
    this.deleting.add(project.id);
    try {
      if (this.isProjectBusy(project.customerId, project.id)) {
        throw new AppError(
          'CONFLICT',
          'A turn is running on this project; interrupt it or wait for it to finish before deleting the project',
        );
      }
      const coder = await this.deps.projects.linkedCoderProject(project.id);
      if (coder !== null) {
        throw new AppError('CONFLICT', 'This project is the workspace of a desktop coder project; delete that one instead', {
          details: { coder_project: coder },
        });
      }
      const record = await this.deps.threads.forProject(project.id);
      if (record && this.turns.forgetIdle(record.threadId)) {
        this.deps.router.unroute(record.threadId, this);
        this.openItems.forget(record.threadId);
      }
      await this.deps.projects.remove(project);
      this.deps.events.forgetWorkspace(project.id);
    } finally {
      this.deleting.delete(project.id);
    }
  }

  /** What a turn of the customer's runs with when it names no model, effort, approval policy or permissions. */
  async turnDefaults(customerId: number) {
    const defaults = { ...this.deps.defaults(), ...(await this.deps.customerDefaults?.(customerId)) };
    return {
      model: defaults.model,
      reasoning_effort: defaults.reasoningEffort,
      approval_policy: defaults.approvalPolicy,
      sandbox: defaults.sandbox,
      web_search: defaults.webSearch,
    };
  }

  /** Summary of the latest thread; reads preview and status only from an app-server that is already running. */
  async latest(project: Project) {
    const record = await this.deps.threads.forProject(project.id);
    if (!record) return null;
    const server = this.deps.peek(project.customerId);
    const read = server?.loadedThreads.has(record.threadId)
      ? await server.call('thread/read', { threadId: record.threadId, includeTurns: false }).catch(() => null)
      : null;
    return {
      id: record.threadId,
      created_at: record.createdAt,
      loaded: read !== null,
      preview: read?.thread.preview ?? null,
      status: read?.thread.status ?? { type: 'notLoaded' },
      active_turn_id: this.turns.activeTurn(record.threadId),
    };
  }

  private threadView(thread: Thread) {
    return threadView(thread, this.turns.activeTurn(thread.id));
  }

  /** One opener per project at a time, so concurrent opens never start two threads; a fresh start waits its turn. */
  private ensureLoaded(project: Project, fresh = false) {
    const existing = this.opening.get(project.id);
    if (existing && !fresh) return existing;
    const run = async () => {
      if (existing) await existing.catch(() => undefined);
      return fresh ? this.startFresh(project) : this.load(project);
    };
    const opening = run().finally(() => {
      if (this.opening.get(project.id) === opening) this.opening.delete(project.id);
    });
    this.opening.set(project.id, opening);
    return opening;
  }

  /** A new thread replaces the project's thread; the previous one stays on disk (and in `/api/threads`). */
  private async startFresh(project: Project): Promise<{ server: ManagedAppServer; threadId: string; created: boolean }> {
    const server = await this.deps.acquire(project.customerId);
    const record = await this.deps.threads.forProject(project.id);
    const threadId = await this.startThread(server, project);
    if (!record) {
      await this.deps.threads.record(project.id, project.customerId, threadId);
      return { server, threadId, created: true };
    }
    await this.deps.threads.replace(project.id, record.threadId, threadId);
    if (this.turns.forgetIdle(record.threadId)) this.deps.router.unroute(record.threadId, this);
    return { server, threadId, created: true };
  }

  private async load(project: Project): Promise<{ server: ManagedAppServer; threadId: string; created: boolean }> {
    const server = await this.deps.acquire(project.customerId);
    const record = await this.deps.threads.forProject(project.id);
    if (record && server.loadedThreads.has(record.threadId)) return { server, threadId: record.threadId, created: false };
    if (!record) {
      const threadId = await this.startThread(server, project);
      const recorded = await this.deps.threads.record(project.id, project.customerId, threadId);
      return { server, threadId: recorded.threadId, created: recorded.threadId === threadId };
    }
    this.remember(record.threadId, project);
    try {
      await server.call('thread/resume', { threadId: record.threadId });
      server.loadedThreads.add(record.threadId);
      return { server, threadId: record.threadId, created: false };
    } catch (error) {
      if (!isUnsavedThread(error)) throw mapAppServerError(error);
    }
    // The app-server writes a thread to disk with its first turn; one that never had a turn holds no
    // conversation, so a fresh thread takes its place.
    const threadId = await this.startThread(server, project);
    await this.deps.threads.replace(project.id, record.threadId, threadId);
    return { server, threadId, created: true };
  }

  private async startThread(server: ManagedAppServer, project: Project): Promise<string> {
    const defaults = { ...this.deps.defaults(), ...(await this.deps.customerDefaults?.(project.customerId)) };
    const started = await server.call('thread/start', {
      cwd: project.workspaceDir,
      model: defaults.model,
      approvalPolicy: defaults.approvalPolicy as TurnStartParams['approvalPolicy'],
      sandbox: defaults.sandbox as 'danger-full-access',
      config: { model_reasoning_effort: defaults.reasoningEffort, web_search: defaults.webSearch },
    });
    const threadId = started.thread.id;
    this.remember(threadId, project);
    server.loadedThreads.add(threadId);
    await this.deps.events.append(project.id, 'thread/started', { thread: started.thread });
    return threadId;
  }

  private remember(threadId: string, project: Project): void {
    this.deps.events.setWorkspace(project.id, project.workspaceDir);
    this.turns.remember(threadId, { projectId: project.id, customerId: project.customerId });
    this.deps.router.route(threadId, project.customerId, this);
  }
}

function isUnsavedThread(error: unknown): boolean {
  return error instanceof AppServerError && /no rollout found/i.test(error.message);
}
