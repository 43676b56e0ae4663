/** Agent domain composition: app-server supervisor, managed projects, event log, approvals, files. */
import type { DomainDeps } from '../services.js';
import type { BillingServices } from '../billing/index.js';
import type { GatewayServices } from '../gateway/index.js';
import type { ProjectEvents } from './events/index.js';
import type { ProjectStore } from './projects/types.js';

export interface AgentDependencies {
  billing: BillingServices;
  gateway: GatewayServices;
  projects: ProjectStore;
  projectEvents: ProjectEvents;
}

export interface AgentServices {
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createAgentServices(_deps: DomainDeps, _domains: AgentDependencies): Promise<AgentServices> {
  return { async start() {}, async close() {} };
}
