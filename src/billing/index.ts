/** Billing domain composition: ledger, wallets, rate cards, key policies, limits and the meter. */
import type { DomainDeps } from '../services.js';
import { freeMeter, type Meter } from './meter.js';

export interface WalletSummary {
  balanceMicros: number;
  holdsMicros: number;
  availableMicros: number;
  /** Active Unlimited Coding plan id, if any. */
  plan: string | null;
}

export interface BillingServices {
  meter: Meter;
  walletSummary(customerId: number): Promise<WalletSummary>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createBillingServices(_deps: DomainDeps): Promise<BillingServices> {
  return {
    meter: freeMeter,
    async walletSummary() {
      return { balanceMicros: 0, holdsMicros: 0, availableMicros: 0, plan: null };
    },
    async start() {},
    async close() {},
  };
}
