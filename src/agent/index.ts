/** Agent domain composition: app-server supervisor, managed projects, event log, approvals, files. */
import type { DomainDeps } from '../services.js';

export interface AgentServices {
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createAgentServices(_deps: DomainDeps): Promise<AgentServices> {
  return { async start() {}, async close() {} };
}
