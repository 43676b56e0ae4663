/**
 * Which surface owns each loaded thread, and the dispatch of app-server traffic by it. A thread is routed when its
 * owner starts, resumes or adopts it: a managed project's thread to the project runtime, a direct thread (started
 * on the direct routes or through the passthrough) to the direct surface. Notifications and server requests
 * (approvals) of a thread go to its owner only; traffic of a thread nobody owns — or of another customer's — is
 * dropped (notifications) or refused (requests), never handed to a surface to sort out.
 */
import type { JsonRpcNotification, JsonRpcServerRequest } from '../appserver/connection.js';
import type { ManagedAppServer } from '../appserver/supervisor.js';

/** A surface that owns threads and receives their app-server traffic. */
export interface ThreadOwner {
  onNotification(customerId: number, notification: JsonRpcNotification): void;
  onServerRequest(customerId: number, request: JsonRpcServerRequest): Promise<unknown>;
  /** The customer's app-server died: no turn of theirs runs any more. */
  onCrash(customerId: number): void | Promise<void>;
  /** Another node served the customer and stopped without releasing its lease. */
  onNodeLost(customerId: number, node: string): void | Promise<void>;
  /** A running turn (or a listener the surface counts) holds the customer's app-server up. */
  isBusy(customerId: number): boolean;
  /** The turns running on the customer's threads of this surface. */
  runningTurns(customerId: number): { threadId: string; turnId: string }[];
  /** The node drains: no turn starts here any more (running ones go on). */
  refuseTurnStarts(): void;
  /**
   * The customer's app-server is stopped on purpose (`reason`, e.g. the node drains) while turns still run: each
   * running turn is logged as ended with a `runtime/exited` event and forgotten. Resolves once the events are queued.
   */
  onStopping(customerId: number, reason: string): Promise<void>;
  /** The customer's app-server was restarted after a crash: the surface loads again the threads it had loaded. */
  onRestart?(server: ManagedAppServer, threadIds: string[]): Promise<void>;
  /** Live listeners (event stream subscribers) of the surface's threads keep the customer's app-server up. */
  hasListeners?(customerId: number): boolean;
}

/** The thread a notification or request is about (`threadId`, or the `thread` it carries). */
export function threadIdOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  const { threadId, thread } = params as { threadId?: unknown; thread?: { id?: unknown } | null };
  if (typeof threadId === 'string') return threadId;
  return typeof thread?.id === 'string' ? thread.id : undefined;
}

export class ThreadRouter {
  private readonly routes = new Map<string, { customerId: number; owner: ThreadOwner }>();
  private readonly owners: ThreadOwner[] = [];

  /** A surface that owns threads; each is told of crashes and asked whether it is busy. */
  register(owner: ThreadOwner): void {
    if (!this.owners.includes(owner)) this.owners.push(owner);
  }

  /** From now on the thread's traffic goes to `owner`. */
  route(threadId: string, customerId: number, owner: ThreadOwner): void {
    this.register(owner);
    this.routes.set(threadId, { customerId, owner });
  }

  /** Stops routing the thread, if `owner` still owns it. */
  unroute(threadId: string, owner: ThreadOwner): void {
    if (this.routes.get(threadId)?.owner === owner) this.routes.delete(threadId);
  }

  ownerOf(threadId: string, customerId: number): ThreadOwner | undefined {
    const route = this.routes.get(threadId);
    return route?.customerId === customerId ? route.owner : undefined;
  }

  handleNotification(customerId: number, notification: JsonRpcNotification): void {
    const threadId = threadIdOf(notification.params);
    if (threadId !== undefined) this.ownerOf(threadId, customerId)?.onNotification(customerId, notification);
  }

  async handleServerRequest(customerId: number, request: JsonRpcServerRequest): Promise<unknown> {
    const threadId = threadIdOf(request.params);
    const owner = threadId === undefined ? undefined : this.ownerOf(threadId, customerId);
    // Requests of no thread of ours are refused rather than left hanging.
    if (!owner) throw new Error(`${request.method} is not supported by this service`);
    return owner.onServerRequest(customerId, request);
  }

  async crashed(customerId: number): Promise<void> {
    for (const owner of this.owners) await owner.onCrash(customerId);
  }

  async nodeLost(customerId: number, node: string): Promise<void> {
    for (const owner of this.owners) await owner.onNodeLost(customerId, node);
  }

  isBusy(customerId: number): boolean {
    return this.owners.some((owner) => owner.isBusy(customerId));
  }

  async restarted(server: ManagedAppServer, threadIds: string[]): Promise<void> {
    for (const owner of this.owners) await owner.onRestart?.(server, threadIds);
  }

  hasListeners(customerId: number): boolean {
    return this.owners.some((owner) => owner.hasListeners?.(customerId) === true);
  }

  runningTurns(customerId: number): { threadId: string; turnId: string }[] {
    return this.owners.flatMap((owner) => owner.runningTurns(customerId));
  }

  refuseTurnStarts(): void {
    for (const owner of this.owners) owner.refuseTurnStarts();
  }

  async stopping(customerId: number, reason: string): Promise<void> {
    for (const owner of this.owners) await owner.onStopping(customerId, reason);
  }
}
