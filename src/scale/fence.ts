/**
 * Fencing of a lease holder's writes: the event log and the project-thread records check, inside the writing
 * transaction, that this node still holds the lease of every customer written for, with the token it was given.
 * A write after another node took the lease over (a newer token) is refused, and the lease counts as lost.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { LeaseManager } from './lease-manager.js';
import type { LeaseStore } from './lease-store.js';

/** Checks run by writers inside their transaction; absent on one node (no lease, no extra query). */
export interface WriteFence {
  check(trx: Transaction<Database>, projectIds: string[]): Promise<void>;
}

export class FencedWriteError extends Error {
  constructor(readonly projectId: string) {
    super(`write for project ${projectId} refused: this node does not hold the customer's lease (or holds an older token)`);
    this.name = 'FencedWriteError';
  }
}

export class LeaseFence implements WriteFence {
  constructor(
    private readonly store: LeaseStore,
    private readonly leases: LeaseManager,
  ) {}

  async check(trx: Transaction<Database>, projectIds: string[]): Promise<void> {
    const unique = [...new Set(projectIds)];
    const found = await this.store.leasesOfProjects(trx, unique);
    for (const [projectId, lease] of found) {
      if (!lease) throw new FencedWriteError(projectId);
      const mine = this.leases.tokenOf(lease.customerId);
      if (lease.holderNode === this.leases.nodeId && mine === lease.token) continue;
      if (mine !== undefined) this.leases.lost(lease.customerId);
      throw new FencedWriteError(projectId);
    }
  }
}
