/** Project event log composition (see types.ts). */
import type { DomainDeps } from '../../services.js';
import type { ProjectEventLog } from './types.js';

export interface ProjectEvents extends ProjectEventLog {
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createProjectEvents(_deps: DomainDeps): Promise<ProjectEvents> {
  return {
    async append() {
      throw new Error('event log not built yet');
    },
    async start() {},
    async close() {},
  };
}
