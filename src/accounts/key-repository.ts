/** Persistence of API keys. Only keyed hashes, prefixes and last-four characters are stored. */
import type { CompiledQuery, Kysely, Selectable, Transaction } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import { afterCommit } from '../storage/after-commit.js';
import type { Database } from '../storage/schema.js';
import type { ApiKeyKind, ApiKeysTable } from '../storage/tables/chassis.js';
import { generateKey, hashKey } from './key-format.js';
import type { KeyPolicy } from './principal.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;
type Executor = Kysely<Database> | Transaction<Database>;

export interface NewKey {
  customerId: number | null;
  kind: ApiKeyKind;
  role: 'customer' | 'operator';
  name?: string | null;
  policy?: KeyPolicy;
  expiresAt?: number | null;
}

export interface IssuedKey {
  row: ApiKeyRow;
  plaintext: string;
}

export class KeyRepository {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  /** Called once a change to what authentication reads (revocation, policy, expiry) has committed. */
  private readonly changeListeners: Array<() => void> = [];

  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(executor: Executor): void {
    afterCommit(executor, () => {
      for (const listener of this.changeListeners) listener();
    });
  }

  /** The keyed hash a plaintext is stored and looked up by. */
  hashOf(plaintext: string): string {
    return hashKey(this.secret, plaintext);
  }

  async issue(executor: Executor, key: NewKey): Promise<IssuedKey> {
    const generated = generateKey(key.kind);
    const row = await executor
      .insertInto('api_keys')
      .values({
        customer_id: key.customerId,
        kind: key.kind,
        role: key.role,
        name: key.name ?? null,
        key_hash: hashKey(this.secret, generated.plaintext),
        prefix: generated.prefix,
        last_four: generated.lastFour,
        policy_json: JSON.stringify(key.policy ?? {}),
        expires_at: key.expiresAt ?? null,
        revoked_at: null,
        created_at: this.clock.nowMs(),
        last_used_at: null,
        replaced_by: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, plaintext: generated.plaintext };
  }

  findByPlaintext(executor: Executor, plaintext: string): Promise<ApiKeyRow | undefined> {
    return executor.selectFrom('api_keys').selectAll().where('key_hash', '=', hashKey(this.secret, plaintext)).executeTakeFirst();
  }

  /**
   * The key with its customer's status and VIP flag, in one query. This runs on every authenticated request, so
   * the query is built and compiled once per database handle and executed with the new hash each time.
   */
  async findForAuthentication(executor: Kysely<Database>, keyHash: string): Promise<AuthenticationRow | undefined> {
    let template = this.authenticationQueries.get(executor);
    if (template === undefined) {
      template = authenticationQuery(executor, '').compile();
      this.authenticationQueries.set(executor, template);
    }
    const result = await executor.executeQuery<AuthenticationRow>({ ...template, parameters: [keyHash] });
    return result.rows[0];
  }

  private readonly authenticationQueries = new WeakMap<Kysely<Database>, CompiledQuery<AuthenticationRow>>();

  findById(executor: Executor, keyId: number): Promise<ApiKeyRow | undefined> {
    return executor.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  }

  findForCustomer(executor: Executor, customerId: number, keyId: number): Promise<ApiKeyRow | undefined> {
    return executor.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('customer_id', '=', customerId).executeTakeFirst();
  }

  listForCustomer(executor: Executor, customerId: number): Promise<ApiKeyRow[]> {
    return executor
      .selectFrom('api_keys')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  /** Revokes a key; returns false when it was already revoked (no double revocation). */
  async revoke(executor: Executor, keyId: number, replacedBy: number | null = null): Promise<boolean> {
    const result = await executor
      .updateTable('api_keys')
      .set({ revoked_at: this.clock.nowMs(), replaced_by: replacedBy })
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.changed(executor);
    return Number(result.numUpdatedRows) === 1;
  }

  async update(
    executor: Executor,
    keyId: number,
    changes: { name?: string | null; policy?: KeyPolicy; expiresAt?: number | null },
  ): Promise<void> {
    const values: { name?: string | null; policy_json?: string; expires_at?: number | null } = {};
    if (changes.name !== undefined) values.name = changes.name;
    if (changes.policy !== undefined) values.policy_json = JSON.stringify(changes.policy);
    if (changes.expiresAt !== undefined) values.expires_at = changes.expiresAt;
    if (Object.keys(values).length === 0) return;
    await executor.updateTable('api_keys').set(values).where('id', '=', keyId).execute();
    this.changed(executor);
  }

  async touch(executor: Executor, keyId: number, nowMs: number): Promise<void> {
    await executor
      .updateTable('api_keys')
      .set({ last_used_at: nowMs })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', nowMs - 60_000)]))
      .execute();
  }
}

function authenticationQuery(executor: Kysely<Database>, keyHash: string) {
  return executor
    .selectFrom('api_keys')
    .leftJoin('customers', 'customers.id', 'api_keys.customer_id')
    .select([
      'api_keys.id',
      'api_keys.customer_id',
      'api_keys.kind',
      'api_keys.role',
      'api_keys.policy_json',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'customers.status as customer_status',
      'customers.vip as customer_vip',
    ])
    .where('api_keys.key_hash', '=', keyHash);
}

export type AuthenticationRow = Awaited<ReturnType<ReturnType<typeof authenticationQuery>['executeTakeFirstOrThrow']>>;
