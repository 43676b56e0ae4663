/**
 * The wallet-linked key a customer's app-server sends to our gateway as its provider credential. One key per
 * customer, kept across app-server restarts and service restarts: its plaintext is stored sealed with the server
 * secret (AES-256-GCM) and handed to each new process through its environment; it is never logged. The key acts
 * only on the gateway and only while one of the customer's turns runs (`agentRuntime`), so a key outliving its
 * process opens nothing. A revoked key (by the customer or operator) is replaced at the next start.
 */
import type { KeyRepository } from '../accounts/key-repository.js';
import type { SecretBox } from '../accounts/secrets.js';
import type { Clock } from '../kernel/clock.js';
import { inTransaction } from '../storage/after-commit.js';
import type { Storage } from '../storage/database.js';

export const RUNTIME_KEY_NAME = 'Agent runtime';

export class RuntimeKeys {
  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
    private readonly box: SecretBox,
  ) {}

  /** The customer's runtime key: the live one kept from an earlier start, else a new one (the old row revoked). */
  async issue(customerId: number): Promise<string> {
    return inTransaction(this.storage.db, async (trx) => {
      const previous = await trx
        .selectFrom('agent_runtime_keys')
        .leftJoin('api_keys', 'api_keys.id', 'agent_runtime_keys.key_id')
        .select(['agent_runtime_keys.key_id', 'agent_runtime_keys.key_sealed', 'api_keys.revoked_at'])
        .where('agent_runtime_keys.customer_id', '=', customerId)
        .executeTakeFirst();
      const kept = previous && previous.revoked_at === null && previous.key_sealed !== null ? this.unseal(previous.key_sealed) : null;
      if (kept !== null) return kept;
      // Gateway only: the agent's shell could read this key, and it must not reach the account or project routes.
      const issued = await this.keys.issue(trx, {
        customerId,
        kind: 'wallet',
        role: 'customer',
        name: RUNTIME_KEY_NAME,
        policy: { surfaces: ['gateway'], agentRuntime: true },
      });
      const values = {
        key_id: issued.row.id,
        created_at: this.clock.nowMs(),
        key_sealed: this.box.encrypt('runtime-key', issued.plaintext),
      };
      if (previous) {
        if (previous.revoked_at === null) await this.keys.revoke(trx, previous.key_id, issued.row.id);
        await trx.updateTable('agent_runtime_keys').set(values).where('customer_id', '=', customerId).execute();
      } else {
        await trx
          .insertInto('agent_runtime_keys')
          .values({ customer_id: customerId, ...values })
          .execute();
      }
      return issued.plaintext;
    });
  }

  /** A sealed key the current secret cannot open (the secret changed) counts as none: a new one is issued. */
  private unseal(sealed: string): string | null {
    try {
      return this.box.decrypt('runtime-key', sealed);
    } catch {
      return null;
    }
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
