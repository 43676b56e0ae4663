/** Managed projects: one project id → one stable workspace directory, owned by one customer. */
import type { Principal } from '../../accounts/principal.js';

export interface Project {
  id: string;
  customerId: number;
  name: string | null;
  /** Absolute, realpath-resolved workspace directory under the data dir. Never changes. */
  workspaceDir: string;
  createdAt: number;
}

export interface ProjectStore {
  create(customerId: number, name?: string | null): Promise<Project>;
  /** Newest first; `after` is the id of the last project of the previous page; customer null = all (operators). */
  list(customerId: number | null, options?: { limit?: number; after?: string }): Promise<Project[]>;
  /** The project if the principal owns it (operators may read any); otherwise 404 NOT_FOUND. */
  requireOwned(principal: Principal, projectId: string): Promise<Project>;
  /** Sets (or, with null, clears) the project's name; 400 for an empty or overlong name. */
  rename(project: Project, name: string | null): Promise<Project>;
  /** The desktop coder project that owns this project's workspace, if any (it is deleted through the coder routes). */
  linkedCoderProject(projectId: string): Promise<string | null>;
  /** Deletes the project, its thread links, approvals, turn keys and event log, then its workspace directory. */
  remove(project: Project): Promise<void>;
}
