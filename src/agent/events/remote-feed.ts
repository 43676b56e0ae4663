/**
 * Delivery of events another node committed. A relay message only names them (project, first and last sequence
 * number); this node reads those rows back from the log and hands the rows, never the message, to its
 * subscribers. So a forged or replayed message can at most make a node re-read committed events: it cannot put
 * text into a stream, and it cannot move a project's sequence (a remote reference only empties this node's
 * cached sequence, so the next append here reads the newest one from the table). A reference whose last event is
 * not in the log is dropped and counted (`not_in_log`).
 *
 * References arriving while a read runs are merged per project (first..last widened), so a busy project costs
 * one read per round, whatever the number of messages; projects without a subscriber on this node cost nothing.
 */
import type { Logger } from 'pino';
import type { EventHub } from './event-hub.js';
import type { SqlEventLog } from './event-log.js';
import type { RelayRejections } from './relay-envelope.js';
import type { RelayReference } from './redis-relay.js';

/** Events read back per project and round; a stream that needs more fills its hole from the log itself. */
const READ_BACK_MAX = 500;

export class RemoteEventFeed {
  private readonly pending = new Map<string, { fromSeq: number; toSeq: number }>();
  private draining: Promise<void> | null = null;

  constructor(private readonly deps: { log: SqlEventLog; hub: EventHub; rejections: RelayRejections; logger: Logger }) {}

  /** References of one verified relay message. */
  note(references: RelayReference[]): void {
    for (const { projectId, fromSeq, toSeq } of references) {
      this.deps.log.forgetSeq(projectId);
      if (this.deps.hub.subscriberCount(projectId) === 0) continue;
      const range = this.pending.get(projectId);
      if (!range) this.pending.set(projectId, { fromSeq, toSeq });
      else {
        range.fromSeq = Math.min(range.fromSeq, fromSeq);
        range.toSeq = Math.max(range.toSeq, toSeq);
      }
    }
    if (this.pending.size > 0) this.draining ??= this.drain();
  }

  /** Resolves once every noted reference was read back (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const round = [...this.pending];
        this.pending.clear();
        for (const [projectId, range] of round) await this.deliver(projectId, range.fromSeq, range.toSeq);
      }
    } finally {
      this.draining = null;
    }
  }

  private async deliver(projectId: string, fromSeq: number, toSeq: number): Promise<void> {
    let events;
    try {
      events = await this.deps.log.readRange(projectId, fromSeq, toSeq, READ_BACK_MAX);
    } catch (error) {
      // The stream recovers the events from the log at the project's next event.
      this.deps.logger.warn({ err: error, projectId }, 'reading relayed project events back from the log failed');
      return;
    }
    if (events.at(-1)?.seq !== toSeq) this.deps.rejections.reject('not_in_log', { projectId, fromSeq, toSeq });
    if (events.length > 0) this.deps.hub.publish(events);
  }
}
