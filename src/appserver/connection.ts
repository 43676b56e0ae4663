/**
 * JSON-RPC over a line transport. Our request ids live in their own map (integers we count); the server's own
 * requests (approvals) carry ids counted by the server from 0, so they are dispatched to a handler and answered
 * with the server's id, never confused with ours. Every request we send has a timeout, because the server does
 * not answer malformed lines at all; everything pending is rejected when the process exits.
 */
import { AppServerError, AppServerTimeoutError } from './errors.js';

export type JsonRpcId = string | number;

export interface JsonRpcServerRequest {
  id: JsonRpcId;
  method: string;
  params: unknown;
}

export interface JsonRpcNotification {
  method: string;
  params: unknown;
}

export interface ConnectionHandlers {
  /** Answers a server-initiated request; a throw becomes a JSON-RPC error reply. */
  onServerRequest(request: JsonRpcServerRequest): Promise<unknown>;
  onNotification(notification: JsonRpcNotification): void;
  /** A line that is not a JSON-RPC message we understand. */
  onProtocolError(message: string, line: string): void;
}

export interface LineSender {
  send(line: string): Promise<void>;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class JsonRpcConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedError: Error | null = null;

  constructor(
    private readonly sender: LineSender,
    private readonly handlers: ConnectionHandlers,
    private readonly requestTimeoutMs: number,
  ) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  request<T>(method: string, params: unknown, timeoutMs = this.requestTimeoutMs): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new AppServerTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, timer });
      this.sender.send(JSON.stringify({ id, method, params })).catch((error: Error) => this.settle(id, undefined, error));
    });
  }

  async notify(method: string, params?: unknown): Promise<void> {
    if (this.closedError) throw this.closedError;
    await this.sender.send(JSON.stringify(params === undefined ? { method } : { method, params }));
  }

  /** Feeds one line read from the server. */
  handleLine(line: string): void {
    let message: Record<string, unknown>;
    try {
      const parsed = JSON.parse(line) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      message = parsed as Record<string, unknown>;
    } catch {
      this.handlers.onProtocolError('unparseable line', line);
      return;
    }
    const method = message.method;
    const id = message.id;
    if (typeof method === 'string' && (typeof id === 'number' || typeof id === 'string')) {
      void this.answer({ id, method, params: message.params });
    } else if (typeof method === 'string') {
      this.handlers.onNotification({ method, params: message.params });
    } else if (typeof id === 'number' && this.pending.has(id)) {
      const error = message.error as { code?: number; message?: string; data?: unknown } | undefined;
      if (error) this.settle(id, undefined, new AppServerError(error.message ?? 'app-server error', error.code ?? 0, error.data));
      else this.settle(id, message.result);
    } else {
      this.handlers.onProtocolError('reply to an unknown request id', line);
    }
  }

  /** Rejects everything pending and refuses new requests (the process exited). */
  close(reason: Error): void {
    if (this.closedError) return;
    this.closedError = reason;
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, reason);
  }

  private settle(id: number, result: unknown, error?: Error): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (error) entry.reject(error);
    else entry.resolve(result);
  }

  private async answer(request: JsonRpcServerRequest): Promise<void> {
    let reply: Record<string, unknown>;
    try {
      reply = { id: request.id, result: await this.handlers.onServerRequest(request) };
    } catch (error) {
      reply = { id: request.id, error: { code: -32603, message: (error as Error).message } };
    }
    if (this.closedError) return;
    await this.sender.send(JSON.stringify(reply)).catch(() => undefined);
  }
}
