/** Project store composition (see types.ts). */
import { SqlProjectStore } from './project-store.js';
import type { Project, ProjectStore } from './types.js';
import type { BaseDeps } from '../../storage/base-deps.js';

/** What this domain takes from the composition root. */
export type ProjectStoreDeps = BaseDeps;

export function createProjectStore(deps: ProjectStoreDeps): ProjectStore {
  return new SqlProjectStore(deps.storage, deps.clock, deps.config.env.dataDir);
}

/** The public JSON view of a project (the workspace path stays server-side). */
export function projectView(project: Project): { id: string; name: string | null; created_at: number } {
  return { id: project.id, name: project.name, created_at: project.createdAt };
}
