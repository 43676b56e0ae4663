/**
 * One SSE client of a project's events. The order of operations is what makes replay exact: subscribe first
 * (live events queue up), then replay the log after the client's cursor, then drain the queue skipping every
 * seq already written. Writes honour socket backpressure: after write() returns false nothing more is written
 * until 'drain'. Once live, an event that finds the socket writable and nothing queued is written at once, so
 * the queue only holds what a full socket could not take. The queue is bounded; when it fills up the client
 * is too slow: it gets a final `overflow` frame (when the socket still takes it) and is disconnected, so it
 * resumes from its last id. It is never silently skipped.
 */
import type { Writable } from 'node:stream';
import { BoundedQueue } from '../../kernel/bounded-queue.js';
import { encodeSseComment, encodeSseFrame } from '../../kernel/sse.js';
import type { EventHub } from './event-hub.js';
import type { SqlEventLog } from './event-log.js';
import type { ProjectEvent } from './types.js';

const REPLAY_PAGE_SIZE = 500;
/** How long an ended stream's client may take to accept the last frames before the socket is destroyed. */
const OVERFLOW_GRACE_MS = 2_000;

/** Frames are encoded once per event, to UTF-8 bytes, and shared by every subscriber. */
const frameCache = new WeakMap<ProjectEvent, Buffer>();

function eventFrame(event: ProjectEvent): Buffer {
  let frame = frameCache.get(event);
  if (frame === undefined) {
    frame = Buffer.from(encodeSseFrame({ id: event.seq, event: event.type, data: event.dataJson }), 'utf8');
    frameCache.set(event, frame);
  }
  return frame;
}

export interface EventStreamOptions {
  projectId: string;
  /** The client's cursor (Last-Event-ID or ?after=); null = live events only. */
  after: number | null;
  sink: Writable;
  heartbeatMs: number;
  queueMax: number;
}

export interface EventStreamDependencies {
  log: SqlEventLog;
  hub: EventHub;
  /** Called when the stream ends with the queue's longest length and whether the client overflowed. */
  onEnd(result: { queueLengthMaxSeen: number; overflowed: boolean }): void;
}

export class EventStream {
  private readonly queue: BoundedQueue<ProjectEvent>;
  private closed = false;
  private overflowed = false;
  private live = false;
  private blocked = false;
  private unblock: (() => void) | null = null;
  private lastWrittenSeq: number | null;

  constructor(
    private readonly options: EventStreamOptions,
    private readonly deps: EventStreamDependencies,
  ) {
    this.queue = new BoundedQueue(options.queueMax);
    this.lastWrittenSeq = options.after;
  }

  get queueLengthMaxSeen(): number {
    return this.queue.lengthMaxSeen;
  }

  /** Ends the stream from the server side (shutdown). */
  /** Ends the stream; `draining` first sends a `reconnect` frame naming the client's resumable cursor. */
  stop(reason?: 'draining'): void {
    this.closed = true;
    this.wakeUp();
    this.endWithGrace(
      reason === undefined
        ? undefined
        : encodeSseFrame({ event: 'reconnect', retryMs: 1_000, data: { last_event_id: this.lastWrittenSeq, reason } }),
    );
  }

  /** Resolves when the stream is over (client gone, overflow or stop). */
  async run(): Promise<void> {
    const { sink } = this.options;
    const unsubscribe = this.deps.hub.subscribe(this.options.projectId, (event) => this.receive(event));
    const onClose = () => {
      this.closed = true;
      this.wakeUp();
    };
    const onDrain = () => {
      this.blocked = false;
      this.wakeUp();
    };
    sink.once('close', onClose);
    sink.on('drain', onDrain);
    // A client that left while the route was still checking its request closed the response before we listened.
    if (sink.destroyed || sink.closed) onClose();
    const heartbeat = setInterval(() => {
      // A blocked socket is not idle, and writing more to it would only grow its buffer.
      if (!this.blocked && this.active) this.writeNow(encodeSseComment('heartbeat'));
    }, this.options.heartbeatMs);
    try {
      if (this.options.after !== null) await this.replay(this.options.after);
      await this.deliverQueued();
      if (this.overflowed && !this.closed) this.disconnectSlowClient();
    } finally {
      clearInterval(heartbeat);
      unsubscribe();
      sink.off('close', onClose);
      sink.off('drain', onDrain);
      this.deps.onEnd({ queueLengthMaxSeen: this.queue.lengthMaxSeen, overflowed: this.overflowed });
      this.queue.clear();
    }
  }

  private get active(): boolean {
    return !this.closed && !this.overflowed;
  }

  private receive(event: ProjectEvent): void {
    if (!this.active) return;
    const next = this.lastWrittenSeq === null || event.seq === this.lastWrittenSeq + 1;
    if (this.live && !this.blocked && this.queue.length === 0 && next) {
      this.writeEvent(event);
      return;
    }
    if (!this.queue.push(event)) {
      this.overflowed = true;
      this.wakeUp();
    }
  }

  private async replay(after: number): Promise<void> {
    if (after > (await this.deps.log.latestSeq(this.options.projectId))) {
      // A cursor ahead of the log (for instance from another database): announce it and start from the oldest.
      this.lastWrittenSeq = 0;
      await this.replayFromLog(Number.POSITIVE_INFINITY, true, after);
      return;
    }
    await this.replayFromLog(Number.POSITIVE_INFINITY, false);
  }

  /**
   * Writes logged events after the last written one and before `untilSeq`. A hole between the cursor and the
   * first event still kept means those events were pruned: the client is told with a `reset` frame.
   */
  private async replayFromLog(untilSeq: number, resetFirst: boolean, requestedAfter = this.lastWrittenSeq ?? 0): Promise<void> {
    let mustReset = resetFirst;
    for (;;) {
      if (!this.active) return;
      const cursor = this.lastWrittenSeq ?? 0;
      const page = (await this.deps.log.readAfter(this.options.projectId, cursor, REPLAY_PAGE_SIZE)).filter(
        (event) => event.seq < untilSeq,
      );
      if (page.length > 0 && page[0]!.seq > cursor + 1) mustReset = true;
      if (mustReset) {
        await this.whenWritable();
        if (!this.active) return;
        this.writeNow(encodeSseFrame({ event: 'reset', data: { oldest_seq: page[0]?.seq ?? null, requested_after: requestedAfter } }));
        mustReset = false;
      }
      for (const event of page) {
        await this.whenWritable();
        if (!this.active) return;
        this.writeEvent(event);
      }
      if (page.length < REPLAY_PAGE_SIZE || !this.active) return;
    }
  }

  private async deliverQueued(): Promise<void> {
    this.live = true;
    while (this.active) {
      if (this.blocked) {
        await this.whenWritable();
        continue;
      }
      const event = this.queue.shift();
      if (event === undefined) {
        await this.queue.waitForItem();
        continue;
      }
      if (this.lastWrittenSeq !== null && event.seq <= this.lastWrittenSeq) continue;
      // A hole in the live feed (a relay message from another node lost) is filled from the log.
      if (this.lastWrittenSeq !== null && event.seq > this.lastWrittenSeq + 1) {
        this.live = false;
        await this.replayFromLog(event.seq, false);
        this.live = true;
        await this.whenWritable();
        if (!this.active) return;
      }
      this.writeEvent(event);
    }
  }

  private writeEvent(event: ProjectEvent): void {
    this.writeNow(eventFrame(event));
    this.lastWrittenSeq = event.seq;
  }

  private writeNow(chunk: string | Buffer): void {
    if (!this.options.sink.write(chunk)) this.blocked = true;
  }

  private async whenWritable(): Promise<void> {
    while (this.blocked && this.active) {
      await new Promise<void>((resolve) => {
        this.unblock = resolve;
      });
    }
  }

  private wakeUp(): void {
    this.queue.wake();
    const unblock = this.unblock;
    this.unblock = null;
    unblock?.();
  }

  private disconnectSlowClient(): void {
    this.endWithGrace(encodeSseFrame({ event: 'overflow', data: { last_event_id: this.lastWrittenSeq, reason: 'client too slow' } }));
  }

  /** Ends the response; a client that does not read it within the grace time loses the socket. */
  private endWithGrace(finalChunk?: string): void {
    const { sink } = this.options;
    if (sink.writableEnded) return;
    if (finalChunk === undefined) sink.end();
    else sink.end(finalChunk);
    if (!sink.writableFinished) setTimeout(() => sink.destroy(), OVERFLOW_GRACE_MS).unref();
  }
}
