/** Gateway domain composition: catalogue and aliases, protocols, providers, stored objects. */
import type { DomainDeps } from '../services.js';
import type { BillingServices } from '../billing/index.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface GatewayServices {
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createGatewayServices(_deps: DomainDeps, _billing: BillingServices): Promise<GatewayServices> {
  return { async start() {}, async close() {} };
}
