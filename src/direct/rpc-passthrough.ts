/**
 * The raw JSON-RPC passthrough: one JSON-RPC 2.0 request in, its response out, forwarded to the caller's own
 * app-server after the guard (rpc-guard.ts). The caller's id is echoed back but never sent: the bridge sends
 * its own ids, so callers can never collide with the service's requests or answer the server's. Threads
 * started, forked or resumed here become direct threads (events in the caller's direct stream, approvals
 * through the approvals routes, one running turn per thread).
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import { TURN_CREDENTIAL_KEY, type TurnCredential } from '../accounts/turn-principals.js';
import { AppServerError, AppServerExitedError, AppServerTimeoutError } from '../appserver/errors.js';
import type { ManagedAppServer } from '../appserver/supervisor.js';
import type { Thread } from '../appserver/protocol.js';
import type { TurnPolicy } from '../agent/turn-policy.js';
import type { TurnRules } from '../agent/turn-rules.js';
import type { ThreadRepository } from '../agent/thread-repository.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside, relativeToWorkspace } from '../agent/files/workspace-path.js';
import { isAppError } from '../kernel/errors.js';
import { isPublicRefusal, mapAppServerError } from '../agent/appserver-errors.js';
import { customerFor } from './access.js';
import type { DirectThreads } from './direct-threads.js';
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_SERVER_ERROR, RpcRefusal, ruleFor } from './rpc-guard.js';
import type { DirectThreadOwners } from './thread-owners.js';
import type { WorkspaceRoots } from './workspace.js';

export type RpcId = string | number | null;

export type RpcReply =
  { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data?: unknown } };

export interface RpcPassthroughDeps {
  acquire(customerId: number): Promise<ManagedAppServer>;
  workspace: WorkspaceRoots;
  owners: DirectThreadOwners;
  threads: DirectThreads;
  projectThreads: ThreadRepository;
  policy: TurnPolicy;
  /** The model and effort checks the project and direct routes apply too. */
  rules: TurnRules;
  /** The model a thread runs on when its start names none. */
  defaultModel: string;
}

export class RpcPassthrough {
  constructor(private readonly deps: RpcPassthroughDeps) {}

  /** `log` (the request's logger, which names the request id) records app-server refusals a client reads only as ours. */
  async handle(principal: Principal, body: unknown, customerIdQuery?: number, log?: Pick<Logger, 'warn'>): Promise<RpcReply> {
    const envelope = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    const id = envelope && (typeof envelope.id === 'string' || typeof envelope.id === 'number') ? envelope.id : null;
    let root: string | null = null;
    try {
      const request = this.envelope(envelope);
      const customerId = customerFor(principal, customerIdQuery);
      root = await this.deps.workspace.root(customerId);
      return {
        jsonrpc: '2.0',
        id,
        result: relativeToWorkspace(await this.forward(principal, customerId, request.method, request.params), root),
      };
    } catch (error) {
      // Invalid request input (the query, or a path in the body no file system could take) is a 422 like on every route.
      if (isAppError(error) && error.code === 'VALIDATION_FAILED' && ['query', 'body'].includes(String(error.issues?.[0]?.loc[0])))
        throw error;
      const rendered = rpcError(publicError(error, log));
      return { jsonrpc: '2.0', id, error: root === null ? rendered : relativeToWorkspace(rendered, root) };
    }
  }

  private envelope(envelope: Record<string, unknown> | null): { method: string; params: Record<string, unknown> } {
    if (!envelope) throw new RpcRefusal(RPC_INVALID_REQUEST, 'Send one JSON-RPC request object (batches are not supported)');
    if (envelope.jsonrpc !== undefined && envelope.jsonrpc !== '2.0') throw new RpcRefusal(RPC_INVALID_REQUEST, 'jsonrpc must be "2.0"');
    if (typeof envelope.method !== 'string') {
      const reason =
        'result' in envelope || 'error' in envelope
          ? 'Server requests are answered through the approvals routes, not here'
          : 'method is required';
      throw new RpcRefusal(RPC_INVALID_REQUEST, reason);
    }
    if (typeof envelope.id !== 'string' && typeof envelope.id !== 'number') {
      throw new RpcRefusal(RPC_INVALID_REQUEST, 'A request needs an id (string or number); notifications are not forwarded');
    }
    const params = envelope.params ?? {};
    if (params === null || typeof params !== 'object' || Array.isArray(params))
      throw new RpcRefusal(RPC_INVALID_PARAMS, 'params must be an object');
    return { method: envelope.method, params: structuredClone(params) as Record<string, unknown> };
  }

  private async forward(principal: Principal, customerId: number, method: string, params: Record<string, unknown>): Promise<unknown> {
    const rule = ruleFor(method);
    const { workspace } = this.deps;
    // thread/start, thread/resume, turn/start and the like name their model in `model`.
    await this.deps.policy.check(principal, params.model);
    const threadId = rule.thread === 'none' ? null : await this.ownedThread(customerId, params.threadId, rule.thread === 'write');
    const newlyRouted = threadId !== null && rule.thread === 'write' && !this.deps.threads.knows(threadId, customerId);
    // The app-server does not answer an interrupt of a finished turn until some later turn ends.
    if (method === 'turn/interrupt' && threadId !== null && this.deps.threads.activeTurn(threadId) !== params.turnId) {
      throw new RpcRefusal(RPC_INVALID_REQUEST, 'This turn is not running');
    }
    const ruled = rule.confine ? await rule.confine(params, { customerId, workspace }) : params;
    // Only a turn start of this service names a turn credential; a steer cannot swap in another.
    const confined = method === 'turn/steer' ? withCredential(ruled, { metadata: {} }) : ruled;
    // Notifications of the caller's thread go to its direct stream from this call on (some arrive before the reply).
    if (newlyRouted) await this.deps.threads.remember(threadId, customerId, await workspace.root(customerId));
    const server = await this.deps.acquire(customerId);
    await this.checkModelSettings(server, method, confined, threadId);
    server.touch();
    const call = (params = confined) => server.client.callRaw(method, params);
    let result: unknown;
    try {
      result =
        method === 'turn/start' && threadId !== null
          ? await this.deps.threads.startTurn(
              threadId,
              async (credential) => (await call(withCredential(confined, credential))) as { turn: { id: string } },
              principal,
            )
          : await call();
    } catch (error) {
      if (newlyRouted && error instanceof AppServerError) this.deps.threads.forget(threadId);
      throw error;
    }
    if (method === 'fs/readDirectory') await this.confineEntries(customerId, String(confined.path), result);
    if (method === 'thread/start' || method === 'thread/fork' || method === 'thread/resume') {
      const thread = (result as { thread?: Thread }).thread;
      if (thread)
        await this.deps.threads.adopt(server, customerId, thread, await this.deps.workspace.root(customerId), method !== 'thread/resume');
      const model = (result as { model?: unknown }).model;
      if (thread && typeof model === 'string') this.deps.threads.noteModel(thread.id, model);
    }
    return result;
  }

  /**
   * A model and effort named by a thread or turn start pass the rules the routes apply (`agent/turn-rules.ts`):
   * a model of the catalog, an effort the thread's model supports, a named approval policy. Refused as -32602
   * naming `params.<field>`.
   */
  private async checkModelSettings(
    server: ManagedAppServer,
    method: string,
    params: Record<string, unknown>,
    threadId: string | null,
  ): Promise<void> {
    const config = params.config as Record<string, unknown> | null | undefined;
    const effort = method === 'turn/start' ? params.effort : method.startsWith('thread/') ? config?.model_reasoning_effort : undefined;
    if (!['turn/start', 'thread/start', 'thread/resume', 'thread/fork'].includes(method)) return;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    // The granular (object) approval policy has no counterpart on the routes; the app-server checks it.
    const selection = { model: text(params.model), effort: text(effort), approvalPolicy: text(params.approvalPolicy) };
    const threadModel = (threadId === null ? undefined : this.deps.threads.modelOf(threadId)) ?? this.deps.defaultModel;
    await this.deps.rules.check(server, selection, threadModel, 'params');
  }

  /**
   * The app-server reports whether each entry *resolves* to a directory or file, following symbolic links; a
   * link whose target lies outside the workspace (or nowhere) is reported as neither, as the files API lists it.
   */
  private async confineEntries(customerId: number, directory: string, result: unknown): Promise<void> {
    const entries = (result as { entries?: { fileName?: unknown; isDirectory?: boolean; isFile?: boolean }[] } | null)?.entries;
    if (!Array.isArray(entries)) return;
    const root = await this.deps.workspace.root(customerId);
    await Promise.all(
      entries.map(async (entry) => {
        if (typeof entry?.fileName !== 'string') return;
        const target = path.join(directory, entry.fileName);
        const stats = await fs.lstat(target).catch(() => null);
        if (!stats?.isSymbolicLink()) return;
        const real = await fs.realpath(target).catch(() => null);
        if (real === null || !isInside(root, real)) {
          entry.isDirectory = false;
          entry.isFile = false;
        }
      }),
    );
  }

  /** The thread must be the caller's; writes are refused on threads of managed projects (the project runtime drives them). */
  private async ownedThread(customerId: number, threadId: unknown, write: boolean): Promise<string> {
    if (typeof threadId !== 'string' || threadId.length === 0) throw new RpcRefusal(RPC_INVALID_PARAMS, 'threadId is required');
    const owner = await this.deps.owners.ownerOf(threadId);
    if (owner && owner.customerId !== customerId) throw new RpcRefusal(RPC_INVALID_REQUEST, `thread not found: ${threadId}`);
    const managed = await this.deps.projectThreads.forThread(threadId);
    if (managed && managed.customerId !== customerId) throw new RpcRefusal(RPC_INVALID_REQUEST, `thread not found: ${threadId}`);
    if (managed && write) {
      throw new RpcRefusal(
        RPC_INVALID_REQUEST,
        `thread ${threadId} belongs to a managed project; use /api/v1/projects/${managed.projectId}`,
      );
    }
    return threadId;
  }
}

/**
 * The passthrough forwards the app-server's refusals in its own JSON-RPC terms, except those whose text is
 * internal (configuration, the Codex home): those read as the routes read them, and the original is logged.
 */
function publicError(error: unknown, log: Pick<Logger, 'warn'> | undefined): unknown {
  if (!(error instanceof AppServerError) || isPublicRefusal(error)) return error;
  log?.warn({ err: error }, 'app-server refusal mapped for the client');
  return mapAppServerError(error, 'params');
}

function rpcError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof RpcRefusal)
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  if (error instanceof AppServerError)
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  if (error instanceof AppServerTimeoutError || error instanceof AppServerExitedError)
    return { code: RPC_SERVER_ERROR, message: error.message };
  if (isAppError(error)) {
    const code = error.code === 'VALIDATION_FAILED' || error.code === 'FORBIDDEN' ? RPC_INVALID_PARAMS : RPC_INVALID_REQUEST;
    if (error.status >= 500) return { code: RPC_SERVER_ERROR, message: 'Internal error' };
    return {
      code,
      message: error.message,
      data: { code: error.code, ...(error.issues ? { issues: error.issues } : {}), ...error.details },
    };
  }
  return { code: RPC_SERVER_ERROR, message: 'Internal error' };
}

/** The turn's own credential (none for a steer) replaces whatever the caller put under its key in `responsesapiClientMetadata`. */
function withCredential(params: Record<string, unknown>, credential: TurnCredential): Record<string, unknown> {
  const given = params.responsesapiClientMetadata;
  if ((given === undefined || given === null) && Object.keys(credential.metadata).length === 0) return params;
  const metadata = given !== null && typeof given === 'object' && !Array.isArray(given) ? { ...(given as Record<string, unknown>) } : {};
  delete metadata[TURN_CREDENTIAL_KEY];
  return { ...params, responsesapiClientMetadata: { ...metadata, ...credential.metadata } };
}
