/**
 * Live shoutbox messages (and, with the same rules, desktop push messages) for SSE clients. The table is the queue: a stream writes every stored message after its
 * cursor in id order (`id:` the message id, so Last-Event-ID resumes), then sleeps until woken. A post on this
 * node wakes every stream at once; posts of other nodes are noticed by one shared check of the newest id every
 * `pollMs` while anyone listens. Ids commit in order (see `Shoutbox`), so a cursor never skips a message.
 * Nothing is buffered per client: a stream stops writing while the socket is full and reads on after 'drain'.
 */
import type { Writable } from 'node:stream';
import { encodeSseComment, encodeSseFrame } from '../kernel/sse.js';

const PAGE_SIZE = 100;

export interface ShoutboxFeedOptions {
  heartbeatMs: number;
  pollMs: number;
  /** The SSE event name of each message (default `message`). */
  event?: string;
}

/** What a feed reads: a table whose ids commit in order, a post signal, and the page after a cursor as one customer sees it. */
export interface FeedSource {
  onPost(listener: () => void): unknown;
  newestId(): Promise<number>;
  since(customerId: number, afterId: number, limit: number): Promise<{ id: number }[]>;
}

export interface ShoutboxStreamOptions {
  customerId: number;
  /** The client's cursor (Last-Event-ID or ?after_id=); null: only messages posted from now on. */
  after: number | null;
  sink: Writable;
}

export class ShoutboxFeed {
  /** Each open stream's wake-up and stop. */
  private readonly streams = new Map<() => void, () => void>();
  private poller: NodeJS.Timeout | null = null;
  private newestSeen = 0;

  constructor(
    private readonly shoutbox: FeedSource,
    private readonly options: ShoutboxFeedOptions,
  ) {
    shoutbox.onPost(() => this.wakeAll());
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Ends every open stream (shutdown); clients reconnect with their Last-Event-ID. */
  endStreams(): void {
    for (const stop of [...this.streams.values()]) stop();
  }

  /** Writes the messages after the cursor, then new ones as they are posted, until the client leaves or `endStreams`. */
  async stream(options: ShoutboxStreamOptions): Promise<void> {
    const { sink } = options;
    let cursor = options.after ?? 0;
    let pending = true;
    let closed = false;
    let blocked = false;
    let resume: (() => void) | null = null;
    const wake = () => {
      pending = true;
      const next = resume;
      resume = null;
      next?.();
    };
    const stop = () => {
      closed = true;
      wake();
    };
    const onDrain = () => {
      blocked = false;
      wake();
    };
    const write = (chunk: string) => {
      if (!sink.write(chunk)) blocked = true;
    };
    this.streams.set(wake, stop);
    this.startPolling();
    sink.once('close', stop);
    sink.on('drain', onDrain);
    if (sink.destroyed || sink.closed) stop();
    const heartbeat = setInterval(() => {
      if (!blocked && !closed) write(encodeSseComment('heartbeat'));
    }, this.options.heartbeatMs);
    try {
      // Registered before this read, so a post after it wakes the stream; `connected` tells the client from when on
      // nothing it posts or sees posted can be missed.
      // No cursor: new messages only. A cursor beyond the newest id (never handed out: a client's bug, a restored
      // database) would hide every message until the ids caught up: it starts from the newest too.
      if (options.after === null) cursor = await this.shoutbox.newestId();
      else cursor = Math.min(cursor, await this.shoutbox.newestId());
      write(encodeSseComment('connected'));
      while (!closed) {
        if (!pending || blocked) {
          await new Promise<void>((resolve) => {
            resume = resolve;
          });
          continue;
        }
        pending = false;
        const page = await this.shoutbox.since(options.customerId, cursor, PAGE_SIZE);
        for (const message of page) {
          if (closed) break;
          write(encodeSseFrame({ id: message.id, event: this.options.event ?? 'message', data: message }));
          cursor = message.id;
        }
        // A full page may have more behind it; a blocked socket reads on after 'drain'.
        if (page.length === PAGE_SIZE) pending = true;
      }
    } finally {
      clearInterval(heartbeat);
      sink.off('close', stop);
      sink.off('drain', onDrain);
      this.streams.delete(wake);
      if (this.streams.size === 0) this.stopPolling();
      if (!sink.writableEnded) sink.end();
    }
  }

  private wakeAll(): void {
    for (const wake of [...this.streams.keys()]) wake();
  }

  /** One check of the newest id per node while streams are open: how posts of other nodes arrive. */
  private startPolling(): void {
    if (this.poller) return;
    this.poller = setInterval(() => {
      this.shoutbox
        .newestId()
        .then((newest) => {
          if (newest > this.newestSeen) {
            this.newestSeen = newest;
            this.wakeAll();
          }
        })
        // A failed check is retried at the next tick; the streams keep what they have.
        .catch(() => undefined);
    }, this.options.pollMs);
    this.poller.unref();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }
}
