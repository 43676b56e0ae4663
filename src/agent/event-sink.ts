/**
 * Ordered appends to the project event log. App-server notifications arrive in order on one pipe, but appends
 * are asynchronous; chaining them per project keeps the log in arrival order without blocking other projects.
 */
import type { Logger } from 'pino';
import type { ProjectEventLog } from './events/types.js';

export class ProjectEventSink {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly log: ProjectEventLog,
    private readonly logger: Logger,
  ) {}

  /** Queues one event; resolves once it (and everything queued before it for the project) is appended. */
  append(projectId: string, type: string, data: unknown): Promise<void> {
    const previous = this.tails.get(projectId) ?? Promise.resolve();
    const next = previous
      .then(() => this.log.append(projectId, type, data))
      .then(
        () => undefined,
        (error: Error) => this.logger.error({ err: error, projectId, type }, 'project event append failed'),
      );
    this.tails.set(projectId, next);
    void next.then(() => {
      if (this.tails.get(projectId) === next) this.tails.delete(projectId);
    });
    return next;
  }
}
