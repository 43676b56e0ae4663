/**
 * The direct thread and turn surface: threads of the caller's own app-server, started and resumed in working
 * directories inside the caller's workspace root, turns (one at a time per thread) and interrupts. Threads of
 * managed projects can be read here but are driven through the project routes, which own their state.
 */
import type { Principal } from '../accounts/principal.js';
import { AppServerError } from '../appserver/errors.js';
import type { ManagedAppServer } from '../appserver/supervisor.js';
import type { Thread, ThreadResumeResponse, ThreadStartParams, ThreadStartResponse, TurnStartParams } from '../appserver/protocol.js';
import type { TurnPolicy } from '../agent/turn-policy.js';
import type { CustomerAgentDefaults } from '../agent/project-runtime.js';
import type { ThreadRepository } from '../agent/thread-repository.js';
import { threadView as projectThreadView } from '../agent/thread-state.js';
import { toUserInput, type TurnRequest } from '../agent/turn-input.js';
import type { TurnRules } from '../agent/turn-rules.js';
import { relativeToWorkspace } from '../agent/files/workspace-path.js';
import { AppError, notFound } from '../kernel/errors.js';
import { customerFor, threadCustomer } from './access.js';
import { mapAppServerError } from '../agent/appserver-errors.js';
import { threadPermissions, turnPermissions, writableRootsOf, type PermissionSelection } from '../agent/permissions.js';
import type { DirectThreads } from './direct-threads.js';
import type { DirectThreadOwners } from './thread-owners.js';
import type { WorkspaceRoots } from './workspace.js';

export interface ThreadStartRequest extends PermissionSelection {
  cwd?: string;
  model?: string;
  effort?: string;
  approvalPolicy?: string;
  baseInstructions?: string;
  developerInstructions?: string;
}

export interface TurnStartRequest extends PermissionSelection {
  threadId: string;
  input: TurnRequest['input'];
  model?: string;
  effort?: string;
  approvalPolicy?: string;
  cwd?: string;
}

export interface ThreadListRequest {
  cursor?: string;
  limit: number;
  cwd?: string;
  archived?: boolean;
  searchTerm?: string;
}

export interface DirectServiceDeps {
  acquire(customerId: number): Promise<ManagedAppServer>;
  workspace: WorkspaceRoots;
  owners: DirectThreadOwners;
  threads: DirectThreads;
  projectThreads: ThreadRepository;
  policy: TurnPolicy;
  /** A customer's own agent defaults (toolbox); absent: the app-server's. */
  customerDefaults?: (customerId: number) => Promise<CustomerAgentDefaults>;
  /** The model, effort and approval checks every surface shares. */
  rules: TurnRules;
  /** The model a thread runs on when its start names none (the app-servers' configured default). */
  defaultModel: string;
}

export class DirectService {
  /** Settings of each thread as the last start or resume reported them. */
  private readonly settings = new Map<string, ReturnType<DirectService['settingsView']>>();

  constructor(private readonly deps: DirectServiceDeps) {}

  async listThreads(principal: Principal, request: ThreadListRequest, customerIdQuery?: number) {
    const customerId = customerFor(principal, customerIdQuery);
    // The caller's app-server holds only the caller's threads; a cwd filter must still name the caller's own tree.
    const cwd = request.cwd === undefined ? undefined : await this.deps.workspace.inside(customerId, request.cwd, ['query', 'cwd']);
    const server = await this.deps.acquire(customerId);
    const listed = await server
      .call('thread/list', {
        cursor: request.cursor ?? null,
        limit: request.limit,
        cwd: cwd ?? null,
        archived: request.archived ?? null,
        searchTerm: request.searchTerm ?? null,
      })
      .catch((error: unknown) => Promise.reject(mapAppServerError(error)));
    return this.relative(customerId, {
      data: listed.data.map((thread) => this.threadView(thread)),
      next_cursor: listed.nextCursor,
      backwards_cursor: listed.backwardsCursor,
    });
  }

  async startThread(principal: Principal, request: ThreadStartRequest, customerIdQuery?: number) {
    await this.deps.policy.check(principal, request.model);
    const customerId = customerFor(principal, customerIdQuery);
    const cwd = await this.deps.workspace.workingDirectory(customerId, request.cwd);
    const server = await this.deps.acquire(customerId);
    const params = await this.threadParams(server, customerId, request, this.deps.defaultModel);
    const started = await server
      .call('thread/start', { ...params, cwd })
      .catch((error: unknown) => Promise.reject(mapAppServerError(error)));
    await this.adopt(server, customerId, started.thread, true);
    return this.relative(customerId, this.settingsView(started));
  }

  async getThread(principal: Principal, threadId: string, includeTurns: boolean) {
    const customerId = await this.threadCustomer(principal, threadId);
    const server = await this.deps.acquire(customerId);
    const read = await this.readThread(server, threadId, includeTurns);
    const managed = await this.deps.projectThreads.forThread(threadId);
    return this.relative(customerId, { ...this.threadView(read.thread, includeTurns), project_id: managed?.projectId ?? null });
  }

  async resumeThread(principal: Principal, threadId: string, request: ThreadStartRequest) {
    await this.deps.policy.check(principal, request.model);
    const customerId = await this.threadCustomer(principal, threadId);
    await this.refuseManaged(threadId);
    const server = await this.deps.acquire(customerId);
    const params = await this.threadParams(server, customerId, request, this.threadModel(threadId));
    const cwd = request.cwd === undefined ? undefined : await this.deps.workspace.workingDirectory(customerId, request.cwd);
    let resumed: ThreadResumeResponse;
    try {
      resumed = await server.call('thread/resume', { threadId, ...params, ...(cwd === undefined ? {} : { cwd }) });
    } catch (error) {
      // A thread without a first turn has no rollout to resume from; while it is loaded there is nothing to resume.
      const settings = this.settings.get(threadId);
      if (!settings || !server.loadedThreads.has(threadId) || !this.deps.threads.knows(threadId, customerId))
        throw mapAppServerError(error);
      if (Object.keys(params).length > 0 || cwd !== undefined)
        throw new AppError('CONFLICT', 'This thread has no turn yet; send the settings with its first turn (POST /api/turns)');
      return this.relative(customerId, {
        ...settings,
        thread: this.threadView((await this.readThread(server, threadId, true)).thread, true),
      });
    }
    await this.adopt(server, customerId, resumed.thread, false);
    return this.relative(customerId, this.settingsView(resumed));
  }

  async startTurn(principal: Principal, request: TurnStartRequest) {
    await this.deps.policy.check(principal, request.model);
    const { threadId } = request;
    const customerId = await this.threadCustomer(principal, threadId);
    await this.refuseManaged(threadId);
    const input = toUserInput({ input: request.input });
    const server = await this.deps.acquire(customerId);
    const overrides = await this.turnOverrides(server, customerId, request, this.threadModel(threadId));
    await this.ensureLoaded(server, customerId, threadId);
    const params: TurnStartParams = { threadId, input, ...overrides };
    const result = await this.deps.threads
      .startTurn(
        threadId,
        (credential) => server.call('turn/start', { ...params, responsesapiClientMetadata: credential.metadata }),
        principal,
      )
      .catch((error: unknown) => Promise.reject(mapAppServerError(error)));
    return { turn_id: result.turn.id, thread_id: threadId, status: result.turn.status };
  }

  async interrupt(principal: Principal, turnId: string, threadId: string) {
    const customerId = await this.threadCustomer(principal, threadId);
    const server = await this.deps.acquire(customerId);
    // The app-server does not answer an interrupt of a finished turn until some later turn ends: a turn of the
    // thread that is not running is a 409, a turn the thread never had (or a thread that does not exist) a 404.
    if (this.deps.threads.activeTurn(threadId) !== turnId) {
      const { thread } = await this.readThread(server, threadId, true);
      if (!(thread.turns ?? []).some((turn) => turn.id === turnId)) throw notFound('Turn');
      throw new AppError('CONFLICT', 'This turn is not running', { details: { turn_id: turnId } });
    }
    await server.call('turn/interrupt', { threadId, turnId }).catch((error: unknown) => Promise.reject(mapAppServerError(error)));
    return { turn_id: turnId, thread_id: threadId, interrupted: true };
  }

  /** Resumes the newest thread whose cwd is the given directory, else starts one there; a prompt starts a turn. */
  async openProject(principal: Principal, request: ThreadStartRequest & { prompt?: string }, customerIdQuery?: number) {
    const customerId = customerFor(principal, customerIdQuery);
    const cwd = await this.deps.workspace.workingDirectory(customerId, request.cwd);
    const server = await this.deps.acquire(customerId);
    const latest = await this.latestThreadIn(server, customerId, cwd);
    const opened = latest
      ? await this.resumeThread(principal, latest, { ...request, cwd: undefined })
      : await this.startThread(principal, { ...request, cwd }, customerIdQuery);
    const turn =
      request.prompt === undefined ? null : await this.startTurn(principal, { threadId: opened.thread.id, input: request.prompt });
    return { ...opened, resumed: latest !== null, turn };
  }

  // ---- helpers ----------------------------------------------------------------------------------------------

  /** An answer with workspace paths relative to the customer's root (the server's absolute paths stay private). */
  private async relative<T>(customerId: number, answer: T): Promise<T> {
    return relativeToWorkspace(answer, await this.deps.workspace.root(customerId));
  }

  /**
   * The customer whose app-server holds the thread. Another customer's thread — direct or of a managed
   * project — is a 404 exactly like a missing one, before any app-server is involved.
   */
  private async threadCustomer(principal: Principal, threadId: string): Promise<number> {
    const customerId = await threadCustomer(principal, threadId, this.deps.owners);
    const managed = await this.deps.projectThreads.forThread(threadId);
    if (managed && managed.customerId !== customerId) throw notFound('Thread');
    return customerId;
  }

  /** Newest by activity among listed threads (not managed projects') and threads recorded before their first turn. */
  private async latestThreadIn(server: ManagedAppServer, customerId: number, cwd: string): Promise<string | null> {
    const listed = await server.call('thread/list', { cwd, sortKey: 'updated_at', limit: 20 });
    let latest: { id: string; atMs: number } | null = null;
    for (const thread of listed.data) {
      if (await this.deps.projectThreads.forThread(thread.id)) continue;
      latest = { id: thread.id, atMs: thread.updatedAt * 1000 };
      break;
    }
    const recorded = await this.deps.owners.latestIn(customerId, cwd);
    if (recorded && (!latest || recorded.createdAt > latest.atMs)) return recorded.threadId;
    return latest?.id ?? null;
  }

  /** thread/read; a thread without a first turn has no turns to include (the app-server refuses to try). */
  private async readThread(server: ManagedAppServer, threadId: string, includeTurns: boolean) {
    try {
      return await server.call('thread/read', { threadId, includeTurns });
    } catch (error) {
      if (includeTurns && error instanceof AppServerError && /not materialized/.test(error.message))
        return server.call('thread/read', { threadId, includeTurns: false });
      throw mapAppServerError(error);
    }
  }

  private async refuseManaged(threadId: string): Promise<void> {
    const managed = await this.deps.projectThreads.forThread(threadId);
    if (managed) {
      throw new AppError('CONFLICT', `This thread belongs to a managed project; use /api/v1/projects/${managed.projectId}`, {
        details: { project_id: managed.projectId },
      });
    }
  }

  private async adopt(server: ManagedAppServer, customerId: number, thread: Thread, started: boolean): Promise<void> {
    await this.deps.threads.adopt(server, customerId, thread, await this.deps.workspace.root(customerId), started);
  }

  /** A saved thread must be resumed before a turn can start on it. */
  private async ensureLoaded(server: ManagedAppServer, customerId: number, threadId: string): Promise<void> {
    if (server.loadedThreads.has(threadId) && this.deps.threads.knows(threadId, customerId)) return;
    const resumed = await server.call('thread/resume', { threadId }).catch((error: unknown) => Promise.reject(mapAppServerError(error)));
    await this.adopt(server, customerId, resumed.thread, false);
  }

  /** The model the thread runs on as its last start or resume reported it, else the default. */
  private threadModel(threadId: string): string {
    return this.deps.threads.modelOf(threadId) ?? this.deps.defaultModel;
  }

  private async threadParams(
    server: ManagedAppServer,
    customerId: number,
    request: ThreadStartRequest,
    threadModel: string,
  ): Promise<Partial<ThreadStartParams>> {
    const permissions = threadPermissions(request);
    const checked = await this.deps.rules.check(server, request, threadModel);
    const params: Partial<ThreadStartParams> = {};
    if (checked.model !== undefined) params.model = checked.model;
    if (checked.approvalPolicy !== undefined) params.approvalPolicy = checked.approvalPolicy;
    if (permissions.permissions !== undefined) params.permissions = permissions.permissions;
    if (permissions.sandbox !== undefined) params.sandbox = permissions.sandbox;
    const config: Record<string, unknown> = { ...permissions.config };
    if (checked.effort !== undefined) config.model_reasoning_effort = checked.effort;
    if (config['sandbox_workspace_write.writable_roots'] !== undefined) {
      config['sandbox_workspace_write.writable_roots'] = await this.insideAll(customerId, writableRootsOf(permissions));
    }
    if (Object.keys(config).length > 0) params.config = config as ThreadStartParams['config'];
    if (request.baseInstructions !== undefined) params.baseInstructions = request.baseInstructions;
    if (request.developerInstructions !== undefined) params.developerInstructions = request.developerInstructions;
    return params;
  }

  private async turnOverrides(
    server: ManagedAppServer,
    customerId: number,
    request: TurnStartRequest,
    threadModel: string,
  ): Promise<Partial<TurnStartParams>> {
    const permissions = turnPermissions(request);
    const checked = await this.deps.rules.check(server, request, threadModel);
    const defaults = await this.deps.rules.customerDefaults(server, await this.deps.customerDefaults?.(customerId), request, threadModel);
    const overrides: Partial<TurnStartParams> = { ...defaults, ...permissions, ...checked };
    if (overrides.sandboxPolicy?.type === 'workspaceWrite') {
      overrides.sandboxPolicy = {
        ...overrides.sandboxPolicy,
        writableRoots: await this.insideAll(customerId, overrides.sandboxPolicy.writableRoots),
      };
    }
    if (request.cwd !== undefined) overrides.cwd = await this.deps.workspace.workingDirectory(customerId, request.cwd);
    return overrides;
  }

  private async insideAll(customerId: number, paths: string[]): Promise<string[]> {
    return Promise.all(paths.map((entry, index) => this.deps.workspace.inside(customerId, entry, ['body', 'writable_roots', index])));
  }

  threadView(thread: Thread, includeTurns = false) {
    return {
      ...projectThreadView(thread, this.deps.threads.activeTurn(thread.id)),
      cwd: thread.cwd,
      forked_from_id: thread.forkedFromId,
      ...(includeTurns ? { turns: thread.turns } : {}),
    };
  }

  private settingsView(response: ThreadStartResponse | ThreadResumeResponse) {
    const view = {
      thread: this.threadView(response.thread, 'initialTurnsPage' in response),
      model: response.model,
      model_provider: response.modelProvider,
      cwd: response.cwd,
      approval_policy: response.approvalPolicy,
      sandbox: response.sandbox,
      active_permission_profile: response.activePermissionProfile ?? null,
      reasoning_effort: response.reasoningEffort,
    };
    this.settings.set(response.thread.id, view);
    this.deps.threads.noteModel(response.thread.id, response.model);
    return view;
  }
}
