/**
 * Appends to the project event log from code that must not fail on a logging error. The log assigns sequence
 * numbers in the order of its `append` calls (one queue, group-committed in that order), so notifications that
 * arrive together on the app-server's pipe are appended at once and share one commit: waiting for each append
 * to commit before issuing the next put one commit (and its fan-out) per notification in front of a turn's
 * last frame. Paths inside a project's workspace are logged relative to it (`.` for the workspace itself): the
 * stream, its replay and every client see where things are in their workspace, never where it lives on the server.
 */
import type { Logger } from 'pino';
import type { ProjectEventLog } from './events/types.js';
import { workspaceRewriter } from './files/workspace-path.js';

export class ProjectEventSink {
  private last: Promise<void> = Promise.resolve();
  /** project id → the rewriter of its workspace paths, for the projects this node serves. */
  private readonly workspaces = new Map<string, <T>(value: T) => T>();

  constructor(
    private readonly log: ProjectEventLog,
    private readonly logger: Logger,
  ) {}

  /** Queues one event; resolves once it (and everything queued before it for the project) is appended. */
  append(projectId: string, type: string, data: unknown): Promise<void> {
    const relative = this.workspaces.get(projectId);
    const logged = relative === undefined ? data : relative(data);
    this.last = this.log.append(projectId, type, logged).then(
      () => undefined,
      (error: Error) => this.logger.error({ err: error, projectId, type }, 'project event append failed'),
    );
    return this.last;
  }

  /** The project's events are logged with paths relative to `workspaceDir` from now on. */
  setWorkspace(projectId: string, workspaceDir: string): void {
    if (!this.workspaces.has(projectId)) this.workspaces.set(projectId, workspaceRewriter(workspaceDir));
  }

  forgetWorkspace(projectId: string): void {
    this.workspaces.delete(projectId);
  }

  /** Resolves once every event queued so far is appended (or failed): the log commits in the order of appends. */
  settled(): Promise<void> {
    return this.last;
  }
}
