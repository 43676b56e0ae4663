/**
 * One upstream HTTP exchange through undici's `dispatch`: resolves with the status and headers once they arrived,
 * then hands over the body as an async iterable of chunks with backpressure.
 *
 * Why not `pool.request()`: it wraps every exchange in an AsyncResource and the body in a Readable stream with its
 * own async iterator. The gateway reads each body once, in order, so a small queue does the same job, and on the
 * gateway's hot path that machinery was a measurable share of each call.
 *
 * Abandoning the body (`return()` before its end) aborts the exchange, as destroying a Readable would; aborting
 * `signal` does too, at any point.
 */
import type { Dispatcher } from 'undici';
import type { CallSignal, StreamPart } from '../../normalized/index.js';

/** Bytes queued and not yet read after which the upstream socket is paused; reading below half resumes it. */
const PAUSE_AT_BYTES = 64 * 1024;
/** The largest non-streamed reply read whole. */
export const JSON_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A non-streamed reply as normalized parts: the whole JSON body, decoded. Unreadable JSON throws a SyntaxError from
 * the iteration, which execute.ts turns into one `error` part, as it does for a broken stream.
 */
export async function* jsonReplyParts<Body>(
  body: UpstreamBody,
  decode: (parsed: Body) => Iterable<StreamPart>,
): AsyncGenerator<StreamPart, void, undefined> {
  yield* decode(JSON.parse(await body.text(JSON_BODY_LIMIT_BYTES)) as Body);
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: UpstreamBody;
}

export function dispatchExchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: CallSignal,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new ExchangeHandler(signal, resolve, reject));
  });
}

class ExchangeHandler implements Dispatcher.DispatchHandlers {
  private abortExchange: ((reason?: Error) => void) | undefined;
  private body: UpstreamBody | undefined;

  constructor(
    private readonly signal: CallSignal,
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.abortExchange?.(abortReason(this.signal));
  };

  onConnect(abort: (reason?: Error) => void): void {
    if (this.signal.aborted) abort(abortReason(this.signal));
    else this.abortExchange = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    this.body = new UpstreamBody(resume, (reason) => this.abortExchange?.(reason));
    this.resolve({ statusCode, headers: parseHeaders(rawHeaders), body: this.body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.body!.push(chunk);
  }

  onComplete(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.body!.end();
  }

  onError(error: Error): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.body) this.body.fail(error);
    else this.reject(error);
  }
}

function abortReason(signal: CallSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The request was aborted');
}

/** Lower-case names; a repeated header becomes an array, as Node and undici present them. */
function parseHeaders(raw: Buffer[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!.toString('latin1').toLowerCase();
    const value = raw[index + 1]!.toString('utf8');
    const previous = headers[name];
    if (previous === undefined) headers[name] = value;
    else if (typeof previous === 'string') headers[name] = [previous, value];
    else previous.push(value);
  }
  return headers;
}

export class UpstreamBody implements AsyncIterableIterator<Buffer> {
  private readonly queue: Buffer[] = [];
  private queuedBytes = 0;
  private paused = false;
  private ended = false;
  private failure: Error | undefined;
  private waiting: { resolve: (result: IteratorResult<Buffer>) => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly resumeUpstream: () => void,
    private readonly abortUpstream: (reason: Error) => void,
  ) {}

  /** From the exchange: a chunk arrived; false pauses the upstream socket until the queue drains. */
  push(chunk: Buffer): boolean {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve({ value: chunk, done: false });
      return true;
    }
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queuedBytes < PAUSE_AT_BYTES) return true;
    this.paused = true;
    return false;
  }

  end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ value: undefined, done: true });
  }

  fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.queue.shift();
    if (chunk !== undefined) {
      this.queuedBytes -= chunk.length;
      if (this.paused && this.queuedBytes < PAUSE_AT_BYTES / 2) {
        this.paused = false;
        this.resumeUpstream();
      }
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The reader stops early: the rest is not wanted, so the exchange is aborted (its socket is not reused). */
  return(): Promise<IteratorResult<Buffer>> {
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (!this.ended && !this.failure) this.abortUpstream(new Error('The upstream body was abandoned'));
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ value: undefined, done: true });
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The whole body as text; past `limitBytes` the exchange is aborted and what arrived so far is returned. */
  async text(limitBytes: number): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of this) {
      size += chunk.length;
      if (size > limitBytes) break;
      chunks.push(chunk);
    }
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }
}
