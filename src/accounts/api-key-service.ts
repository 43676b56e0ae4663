/**
 * A customer's own keys: list, create User API Keys, change their policy, revoke, replace (revoke and reissue
 * with the same policy in one transaction) and rotate the username token (at most once per 24 hours). Every
 * operation is scoped to the calling customer: another customer's key id is "not found", never "forbidden".
 * Plaintexts are returned once, at creation; the database only ever sees keyed hashes.
 */
import { AppError, notFound } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import { inTransaction } from '../storage/after-commit.js';
import type { Storage } from '../storage/database.js';
import type { ApiKeyKind } from '../storage/tables/chassis.js';
import type { ApiKeyRow, KeyRepository } from './key-repository.js';
import { applyPolicyInput, keyView, type KeyPolicyInput, type KeyView } from './key-policy.js';
import { parsePolicy } from './principal.js';

export const USERNAME_ROTATION_INTERVAL_MS = 24 * 3600_000;

/** Kinds a customer manages through /api/v1/me/api-keys (managed keys belong to operators). */
const SELF_SERVICE_KINDS: ApiKeyKind[] = ['wallet', 'username', 'user'];

export interface IssuedKeyView {
  key: string;
  view: KeyView;
}

export interface ApiKeyServiceOptions {
  /** Model ids and aliases that exist, for checking `allowed_models`. */
  knownModels: () => ReadonlySet<string>;
  /** Configured rate-limit plan names, for checking `rate_limit_plan`. */
  knownRateLimitPlans: () => ReadonlySet<string>;
}

const viewOf = (row: ApiKeyRow): KeyView => keyView(row, parsePolicy(row.policy_json));

export class ApiKeyService {
  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
    private readonly options: ApiKeyServiceOptions,
  ) {}

  async list(customerId: number): Promise<KeyView[]> {
    const rows = await this.keys.listForCustomer(this.storage.db, customerId);
    return rows.filter((row) => SELF_SERVICE_KINDS.includes(row.kind)).map(viewOf);
  }

  async create(customerId: number, input: KeyPolicyInput): Promise<IssuedKeyView> {
    const settings = applyPolicyInput({ name: null, policy: {}, expiresAt: null }, input, this.checkOptions());
    const issued = await this.keys.issue(this.storage.db, {
      customerId,
      kind: 'user',
      role: 'customer',
      name: settings.name ?? 'User API Key',
      policy: settings.policy,
      expiresAt: settings.expiresAt,
    });
    return { key: issued.plaintext, view: viewOf(issued.row) };
  }

  async update(customerId: number, keyId: number, input: KeyPolicyInput): Promise<KeyView> {
    return inTransaction(this.storage.db, async (trx) => {
      const row = await this.ownActiveKey(trx, customerId, keyId);
      if (row.kind !== 'user') {
        throw new AppError('CONFLICT', 'Only User API Keys carry a policy; the System Token and username token are unrestricted');
      }
      const current = { name: row.name, policy: parsePolicy(row.policy_json), expiresAt: row.expires_at };
      const next = applyPolicyInput(current, input, this.checkOptions());
      await this.keys.update(trx, keyId, { name: next.name, policy: next.policy, expiresAt: next.expiresAt });
      const updated = await this.keys.findForCustomer(trx, customerId, keyId);
      return viewOf(updated!);
    });
  }

  async revoke(customerId: number, keyId: number): Promise<KeyView> {
    return inTransaction(this.storage.db, async (trx) => {
      const row = await this.ownActiveKey(trx, customerId, keyId);
      if (row.kind === 'username') throw new AppError('CONFLICT', 'The username token is rotated, not revoked');
      if (!(await this.keys.revoke(trx, keyId))) throw notFound('API key');
      return viewOf(row);
    });
  }

  /** Revokes the key and issues a new secret with the same kind, name, policy and expiry, atomically. */
  async replace(customerId: number, keyId: number): Promise<IssuedKeyView> {
    return inTransaction(this.storage.db, async (trx) => {
      const row = await this.ownActiveKey(trx, customerId, keyId);
      if (row.kind === 'username') throw new AppError('CONFLICT', 'The username token is rotated with /api/v1/me/api-token/rotate');
      const issued = await this.keys.issue(trx, {
        customerId,
        kind: row.kind,
        role: 'customer',
        name: row.name,
        policy: parsePolicy(row.policy_json),
        expiresAt: row.expires_at,
      });
      if (!(await this.keys.revoke(trx, keyId, issued.row.id))) throw notFound('API key');
      return { key: issued.plaintext, view: viewOf(issued.row) };
    });
  }

  /**
   * Rotates the username token. The previous rotation is the newest username token that was replaced; a
   * second rotation within 24 hours is a 429 with the seconds left. Two concurrent rotations cannot both win:
   * the revoke of the current token only succeeds once.
   */
  async rotateUsernameToken(customerId: number): Promise<IssuedKeyView & { nextRotationAt: string }> {
    const nowMs = this.clock.nowMs();
    return inTransaction(this.storage.db, async (trx) => {
      const previous = await trx
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('customer_id', '=', customerId)
        .where('kind', '=', 'username')
        .where('replaced_by', 'is not', null)
        .orderBy('revoked_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      const waitMs = previous?.revoked_at == null ? 0 : previous.revoked_at + USERNAME_ROTATION_INTERVAL_MS - nowMs;
      if (waitMs > 0) throw this.rotationTooSoon(waitMs);
      const current = await trx
        .selectFrom('api_keys')
        .select('id')
        .where('customer_id', '=', customerId)
        .where('kind', '=', 'username')
        .where('revoked_at', 'is', null)
        .execute();
      const issued = await this.keys.issue(trx, { customerId, kind: 'username', role: 'customer', name: 'Username token' });
      for (const row of current) {
        if (!(await this.keys.revoke(trx, row.id, issued.row.id))) throw this.rotationTooSoon(USERNAME_ROTATION_INTERVAL_MS);
      }
      return {
        key: issued.plaintext,
        view: viewOf(issued.row),
        nextRotationAt: new Date(nowMs + USERNAME_ROTATION_INTERVAL_MS).toISOString(),
      };
    });
  }

  private rotationTooSoon(waitMs: number): AppError {
    return new AppError('RATE_LIMITED', 'The username token can be rotated once every 24 hours', {
      retryAfterSeconds: Math.ceil(waitMs / 1000),
    });
  }

  private async ownActiveKey(
    executor: Parameters<KeyRepository['findForCustomer']>[0],
    customerId: number,
    keyId: number,
  ): Promise<ApiKeyRow> {
    const row = await this.keys.findForCustomer(executor, customerId, keyId);
    if (!row || row.revoked_at !== null || !SELF_SERVICE_KINDS.includes(row.kind)) throw notFound('API key');
    return row;
  }

  private checkOptions() {
    return {
      nowMs: this.clock.nowMs(),
      knownModels: this.options.knownModels(),
      knownRateLimitPlans: this.options.knownRateLimitPlans(),
    };
  }
}
