/** Project store composition (see types.ts). */
import type { DomainDeps } from '../../services.js';
import type { ProjectStore } from './types.js';

export function createProjectStore(_deps: DomainDeps): ProjectStore {
  const missing = async (): Promise<never> => {
    throw new Error('project store not built yet');
  };
  return { create: missing, list: missing, requireOwned: missing };
}
