/**
 * The wallet-linked key a customer's app-server sends to our gateway as its provider credential. A fresh key is
 * issued at every process start and the previous one revoked, so the plaintext only ever lives in the child's
 * environment and is never stored or logged.
 */
import type { KeyRepository } from '../accounts/key-repository.js';
import type { Clock } from '../kernel/clock.js';
import { inTransaction } from '../storage/after-commit.js';
import type { Storage } from '../storage/database.js';

export const RUNTIME_KEY_NAME = 'Agent runtime';

export class RuntimeKeys {
  /** Customer → the runtime key this process issued (another node may have issued a newer one since). */
  private readonly issued = new Map<number, number>();

  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
  ) {}

  async issue(customerId: number): Promise<string> {
    return inTransaction(this.storage.db, async (trx) => {
      const previous = await trx.selectFrom('agent_runtime_keys').select('key_id').where('customer_id', '=', customerId).executeTakeFirst();
      // Gateway only: the agent's shell could read this key, and it must not reach the account or project routes.
      const issued = await this.keys.issue(trx, {
        customerId,
        kind: 'wallet',
        role: 'customer',
        name: RUNTIME_KEY_NAME,
        policy: { surfaces: ['gateway'], agentRuntime: true },
      });
      if (previous) {
        await this.keys.revoke(trx, previous.key_id, issued.row.id);
        await trx
          .updateTable('agent_runtime_keys')
          .set({ key_id: issued.row.id, created_at: this.clock.nowMs() })
          .where('customer_id', '=', customerId)
          .execute();
      } else {
        await trx
          .insertInto('agent_runtime_keys')
          .values({ customer_id: customerId, key_id: issued.row.id, created_at: this.clock.nowMs() })
          .execute();
      }
      this.issued.set(customerId, Number(issued.row.id));
      return issued.plaintext;
    });
  }

  /** Revokes the customer's runtime key (its app-server stopped; a new start issues a fresh one). */
  async revoke(customerId: number): Promise<void> {
    // Only the key issued here: with several nodes, the customer's current key may belong to the node serving it now.
    const own = this.issued.get(customerId);
    if (own !== undefined) {
      this.issued.delete(customerId);
      await this.keys.revoke(this.storage.db, own);
      return;
    }
    const row = await this.storage.db
      .selectFrom('agent_runtime_keys')
      .select('key_id')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (row) await this.keys.revoke(this.storage.db, Number(row.key_id));
  }

  async current(customerId: number): Promise<{ keyId: number; prefix: string; lastFour: string; createdAt: number } | null> {
    const row = await this.storage.db
      .selectFrom('agent_runtime_keys')
      .innerJoin('api_keys', 'api_keys.id', 'agent_runtime_keys.key_id')
      .select(['api_keys.id', 'api_keys.prefix', 'api_keys.last_four', 'api_keys.created_at', 'api_keys.revoked_at'])
      .where('agent_runtime_keys.customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return null;
    return { keyId: Number(row.id), prefix: row.prefix, lastFour: row.last_four, createdAt: Number(row.created_at) };
  }
}
