/**
 * The operator's key management: issue managed keys (for a customer or an operator), revoke any key, list a
 * customer's keys. Customers manage their own keys through `ApiKeyService`.
 */
import type { Clock } from '../kernel/clock.js';
import { notFound } from '../kernel/errors.js';
import type { Storage } from '../storage/database.js';
import type { ApiKeyRow, IssuedKey, KeyRepository } from './key-repository.js';
import { applyPolicyInput } from './key-policy.js';

export interface ManagedKeyInput {
  /** The owning customer; null for an operator key. */
  customerId: number | null;
  role: 'operator' | 'customer';
  name: string | null;
  /** ISO date-time; absent means the key does not expire. */
  expiresAt?: string;
}

export class ManagedKeys {
  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
  ) {}

  issue(input: ManagedKeyInput): Promise<IssuedKey> {
    const settings = applyPolicyInput(
      { name: null, policy: {}, expiresAt: null },
      { expires_at: input.expiresAt },
      { nowMs: this.clock.nowMs() },
    );
    return this.keys.issue(this.storage.db, {
      customerId: input.customerId,
      kind: 'managed',
      role: input.role,
      name: input.name,
      expiresAt: settings.expiresAt,
    });
  }

  /** Revokes any key (effective on the next request); answers the key as it was. */
  async revoke(keyId: number): Promise<ApiKeyRow> {
    const row = await this.keys.findById(this.storage.db, keyId);
    if (!row) throw notFound('API key');
    await this.keys.revoke(this.storage.db, row.id);
    return row;
  }

  listForCustomer(customerId: number): Promise<ApiKeyRow[]> {
    return this.keys.listForCustomer(this.storage.db, customerId);
  }
}
