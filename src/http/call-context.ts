/**
 * What every gateway route needs around a model call: a signal that fires when the client goes away,
 * and an SSE writer on the raw response (headers + x-request-id at once, every part written as it arrives,
 * heartbeat comments, no buffering).
 */
import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../accounts/principal.js';
import type { CallSignal } from '../gateway/normalized/index.js';
import { SSE_HEADERS, encodeSseComment } from '../kernel/sse.js';

const HEARTBEAT_MS = 15_000;
const HEARTBEAT = encodeSseComment('keep-alive');

export function principalOf(request: FastifyRequest): Principal {
  // app.ts authenticates every `api` route before the handler runs.
  return request.principal!;
}

/** Fires when the response closes before it was completely written (client disconnect). */
class ClientDisconnect implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener);
    if (index >= 0) this.listeners.splice(index, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new Error('The client closed the connection');
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

export function clientAbortSignal(reply: FastifyReply): CallSignal {
  const signal = new ClientDisconnect();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) signal.abort();
  });
  return signal;
}

export class SseWriter {
  private readonly heartbeat: NodeJS.Timeout;
  private corked = false;
  private readonly uncork = (): void => {
    if (!this.corked) return;
    this.corked = false;
    const raw = this.reply.raw;
    if (!raw.headersSent && !raw.destroyed) raw.flushHeaders();
    raw.uncork();
  };

  constructor(
    private readonly reply: FastifyReply,
    requestId: string,
    extraHeaders: Record<string, string> = {},
  ) {
    reply.hijack();
    reply.raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': requestId, ...extraHeaders });
    // The headers leave with the events of the current upstream read, or alone on the next tick.
    this.cork();
    this.heartbeat = setInterval(() => void this.write(HEARTBEAT), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get closed(): boolean {
    return this.reply.raw.destroyed || this.reply.raw.writableEnded;
  }

  /**
   * Writes at once. Events produced while handling one upstream read (one upstream chunk often completes several)
   * leave in one socket write: the socket is corked at the first and uncorked on the next tick, when that read is
   * fully handled, so no event waits for a later one. Resolves after `drain` when the socket's buffer is full, so a
   * slow client slows the upstream read instead of growing memory.
   */
  async write(text: string): Promise<void> {
    if (text === '' || this.closed) return;
    this.cork();
    const raw = this.reply.raw;
    if (!raw.write(text)) {
      this.uncork();
      await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
    }
  }

  /** Ends the response; the last events and the end of the body leave together. */
  end(): void {
    clearInterval(this.heartbeat);
    if (!this.closed) this.reply.raw.end();
    this.uncork();
  }

  private cork(): void {
    if (this.corked) return;
    this.corked = true;
    this.reply.raw.cork();
    process.nextTick(this.uncork);
  }
}

/** JSON object body of a gateway route (the route schema accepts any object; decoders check the fields). */
export function bodyOf(request: FastifyRequest): Record<string, unknown> {
  return (request.body ?? {}) as Record<string, unknown>;
}
