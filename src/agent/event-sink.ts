/**
 * Appends to the project event log from code that must not fail on a logging error. The log assigns sequence
 * numbers in the order of its `append` calls (one queue, group-committed in that order), so notifications that
 * arrive together on the app-server's pipe are appended at once and share one commit: waiting for each append
 * to commit before issuing the next put one commit (and its fan-out) per notification in front of a turn's
 * last frame.
 */
import type { Logger } from 'pino';
import type { ProjectEventLog } from './events/types.js';

export class ProjectEventSink {
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: ProjectEventLog,
    private readonly logger: Logger,
  ) {}

  /** Queues one event; resolves once it (and everything queued before it for the project) is appended. */
  append(projectId: string, type: string, data: unknown): Promise<void> {
    this.last = this.log.append(projectId, type, data).then(
      () => undefined,
      (error: Error) => this.logger.error({ err: error, projectId, type }, 'project event append failed'),
    );
    return this.last;
  }

  /** Resolves once every event queued so far is appended (or failed): the log commits in the order of appends. */
  settled(): Promise<void> {
    return this.last;
  }
}
