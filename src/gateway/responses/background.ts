/**
 * Background responses (`POST /v1/responses` with `background: true`) and their cancellation.
 *
 * Create stores the response as `queued` and returns at once; the call then runs in this process through the
 * same execute path as a foreground request (routing, billing admission, metering). Every state change is a
 * guarded update (`queued → in_progress → completed|failed|incomplete`, or `→ cancelled`), so cancel and
 * completion race safely: the first write wins and a cancelled response never flips back to completed.
 * Cancel aborts the upstream call when this node runs it; a node running a response cancelled elsewhere sees
 * the state change on its next heartbeat and aborts too. Billing settles exactly once either way (execute's finally).
 * A run whose heartbeat stops (its node went away) is recorded as failed when it is next read.
 */
import type { Logger } from 'pino';
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import type { StoredObjectsService } from '../stored/stored-objects.js';
import type { StoredResponse } from '../stored/response-repository.js';
import { type JsonObject } from '../../kernel/json.js';

export const PENDING_STATUSES = ['queued', 'in_progress'];
/** How often a running background response proves it is alive and checks whether it was cancelled elsewhere. */
const HEARTBEAT_INTERVAL_MS = 2_000;
/** A pending response without a heartbeat for this long has lost the node that ran it. */
export const ABANDONED_AFTER_MS = 30_000;

export interface BackgroundRunOptions {
  principal: Principal;
  body: JsonObject;
  requestId: string;
  /** The response as stored when queued (its id, creation time and echo of the request). */
  queued: JsonObject;
  signal: AbortSignal;
}

/**
 * Runs one Responses create body to the end and returns the final Response object (completed, incomplete or
 * failed). Errors raised before the upstream answered are returned as a `failed` response, never thrown.
 */
export type BackgroundRun = (options: BackgroundRunOptions) => Promise<JsonObject>;

export interface BackgroundResponsesOptions {
  stored: StoredObjectsService;
  clock: Clock;
  logger: Logger;
  run: BackgroundRun;
}

export class BackgroundResponses {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(private readonly options: BackgroundResponsesOptions) {}

  /** Stores the queued response and starts it; returns the queued response for the create reply. */
  async start(options: {
    principal: Principal;
    body: JsonObject;
    requestId: string;
    queued: JsonObject;
    inputItems: unknown;
  }): Promise<JsonObject> {
    const queued: JsonObject = { ...options.queued, status: 'queued', background: true };
    await this.options.stored.insertResponse({
      principal: options.principal,
      response: queued,
      request: options.body,
      inputItems: options.inputItems,
      background: true,
      stored: options.body.store !== false,
    });
    const responseId = String(queued.id);
    const controller = new AbortController();
    const done = this.runToEnd({ ...options, queued, signal: controller.signal }).finally(() => this.running.delete(responseId));
    this.running.set(responseId, { controller, done });
    return queued;
  }

  private async runToEnd(options: BackgroundRunOptions): Promise<void> {
    const responseId = String(options.queued.id);
    const repository = this.options.stored.responseRows;
    const started = await repository.transitionResponse({
      responseId,
      fromStatuses: ['queued'],
      status: 'in_progress',
      response: { ...options.queued, status: 'in_progress' },
      nowMs: this.options.clock.nowMs(),
    });
    if (!started) return;
    const watcher = setInterval(() => void this.heartbeat(responseId), HEARTBEAT_INTERVAL_MS);
    watcher.unref();
    try {
      const final = await this.options.run(options);
      await repository.transitionResponse({
        responseId,
        fromStatuses: PENDING_STATUSES,
        status: String(final.status ?? 'completed'),
        response: { ...final, id: responseId, background: true },
        nowMs: this.options.clock.nowMs(),
      });
    } catch (error) {
      this.options.logger.error({ err: error, responseId }, 'background response failed unexpectedly');
      await repository.transitionResponse({
        responseId,
        fromStatuses: PENDING_STATUSES,
        status: 'failed',
        response: { ...options.queued, status: 'failed', error: { code: 'server_error', message: 'The response failed' } },
        nowMs: this.options.clock.nowMs(),
      });
    } finally {
      clearInterval(watcher);
    }
  }

  private async heartbeat(responseId: string): Promise<void> {
    const entry = this.running.get(responseId);
    if (!entry) return;
    const status = await this.options.stored.responseRows.heartbeatResponse(responseId, this.options.clock.nowMs()).catch(() => 'unknown');
    if (status === undefined || status === 'cancelled') entry.controller.abort();
  }

  /**
   * The response as a client may see it now. A pending run whose heartbeat stopped (its node stopped or crashed)
   * is recorded as failed at this point, so a poller never waits forever.
   */
  async current(principal: Principal, responseId: string): Promise<StoredResponse> {
    const found = await this.options.stored.findResponse(principal, responseId);
    const nowMs = this.options.clock.nowMs();
    if (!found.background || !PENDING_STATUSES.includes(found.status) || nowMs - found.updatedAtMs < ABANDONED_AFTER_MS) return found;
    const failed = {
      ...found.response,
      status: 'failed',
      error: { code: 'server_error', message: 'The response was interrupted: the service stopped while it ran' },
    };
    const moved = await this.options.stored.responseRows.transitionResponse({
      responseId,
      fromStatuses: PENDING_STATUSES,
      status: 'failed',
      response: failed,
      nowMs,
    });
    return moved ? { ...found, status: 'failed', response: failed } : this.options.stored.findResponse(principal, responseId);
  }

  /**
   * Cancels a background response that is still pending; anything else (finished, or not a background response)
   * is returned unchanged.
   */
  async cancel(principal: Principal, responseId: string): Promise<JsonObject> {
    const found = await this.current(principal, responseId);
    if (!found.background || !PENDING_STATUSES.includes(found.status)) return found.response;
    const cancelled = { ...found.response, status: 'cancelled' };
    const moved = await this.options.stored.responseRows.transitionResponse({
      responseId,
      fromStatuses: PENDING_STATUSES,
      status: 'cancelled',
      response: cancelled,
      nowMs: this.options.clock.nowMs(),
    });
    if (!moved) return (await this.options.stored.findResponse(principal, responseId)).response;
    this.running.get(responseId)?.controller.abort();
    return cancelled;
  }

  /** Waits until a response running here has finished (tests and shutdown). */
  async settled(responseId: string): Promise<void> {
    await this.running.get(responseId)?.done;
  }

  /** Shutdown: running responses are aborted (each still settles its billing) and recorded as failed. */
  async close(): Promise<void> {
    const entries = [...this.running.entries()];
    for (const [, entry] of entries) entry.controller.abort();
    await Promise.all(entries.map(([, entry]) => entry.done));
  }
}
