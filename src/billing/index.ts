/** Billing domain composition: ledger, wallets, rate cards, key policies, limits and the meter. */
import type { DomainDeps } from '../services.js';
import { freeMeter, type Meter } from './meter.js';

export interface BillingServices {
  meter: Meter;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createBillingServices(_deps: DomainDeps): Promise<BillingServices> {
  return { meter: freeMeter, async start() {}, async close() {} };
}
