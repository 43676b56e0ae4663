/** Project store composition (see types.ts). */
import type { AppConfig } from '../../config/load-config.js';
import type { Storage } from '../../storage/database.js';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.js';
import { SqlProjectStore } from './project-store.js';
import type { Project, ProjectStore } from './types.js';

/** What this domain takes from the composition root. */
export interface ProjectStoreDeps {
  config: AppConfig;
  storage: Storage;
  logger: Logger;
  clock: Clock;
}

export function createProjectStore(deps: ProjectStoreDeps): ProjectStore {
  return new SqlProjectStore(deps.storage, deps.clock, deps.config.env.dataDir);
}

/** The public JSON view of a project (the workspace path stays server-side). */
export function projectView(project: Project): { id: string; name: string | null; created_at: number } {
  return { id: project.id, name: project.name, created_at: project.createdAt };
}
