/**
 * Account alerts (the dashboard's key alerts). `raise` is idempotent per (customer, cause, causeKey): the first
 * call stores the alert, later ones do nothing. Other domains raise their own causes (e.g. an automatic top-up
 * that failed); the key causes are raised here and by the key and billing hooks.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { keySpendMicros, periodStartMs } from './key-spend.js';
import { parsePolicy } from './principal.js';
import type { SecretBox } from './secrets.js';

export const KEY_ALERT_CAUSES = [
  'spending_limit_80',
  'spending_limit_reached',
  'key_expiring',
  'key_expired',
  'key_replaced',
  'key_revoked',
  'new_network',
  'new_sign_in_network',
] as const;

/** Changes of the account's credentials, each its own alert (raised by the routes that make them). */
export const CREDENTIAL_ALERT_CAUSES = [
  'key_created',
  'key_changed',
  'username_token_rotated',
  'sso_link_issued',
  'email_changed',
  'email_change_undone',
  'password_changed',
  'two_factor_enabled',
  'two_factor_disabled',
] as const;

export interface AlertInput {
  cause: string;
  causeKey: string;
  keyId?: number | null;
  details?: Record<string, unknown>;
}

const EXPIRY_WARNING_MS = 7 * 24 * 3_600_000;

export class AlertService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    /** Called once per newly stored alert (e.g. the notification mail); failures are the callee's to log. */
    private readonly onRaised: (customerId: number, alert: AlertInput) => void = () => undefined,
  ) {}

  /** Stores the alert once; true when this call created it. */
  async raise(customerId: number, input: AlertInput): Promise<boolean> {
    const result = await this.storage.db
      .insertInto('account_alerts')
      .values({
        customer_id: customerId,
        key_id: input.keyId ?? null,
        cause: input.cause,
        cause_key: input.causeKey,
        details_json: JSON.stringify(input.details ?? {}),
        created_at: this.clock.nowMs(),
      })
      .onConflict((conflict) => conflict.columns(['customer_id', 'cause', 'cause_key']).doNothing())
      .executeTakeFirst();
    const created = Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    if (created) this.onRaised(customerId, input);
    return created;
  }

  /** Raises expiring (within 7 days) and expired alerts for the customer's keys; run on read and periodically. */
  async scanExpiry(customerId?: number): Promise<void> {
    const now = this.clock.nowMs();
    let query = this.storage.db
      .selectFrom('api_keys')
      .select(['id', 'customer_id', 'name', 'expires_at'])
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now + EXPIRY_WARNING_MS)
      .where('revoked_at', 'is', null)
      .where('customer_id', 'is not', null);
    if (customerId !== undefined) query = query.where('customer_id', '=', customerId);
    for (const key of await query.execute()) {
      const expiresAt = Number(key.expires_at);
      const expired = expiresAt <= now;
      await this.raise(Number(key.customer_id), {
        cause: expired ? 'key_expired' : 'key_expiring',
        causeKey: `key:${key.id}:${expiresAt}`,
        keyId: Number(key.id),
        details: { key_name: key.name, expires_at: new Date(expiresAt).toISOString() },
      });
    }
  }

  /** Every periodic scan: expiry and spending of all customers' keys. */
  async scanAll(): Promise<void> {
    await this.scanExpiry();
    await this.scanSpending();
  }

  /** Spending of every limited, live key (of one customer, or all) against its limit in the current period. */
  async scanSpending(customerId?: number): Promise<void> {
    const now = this.clock.nowMs();
    let query = this.storage.db
      .selectFrom('api_keys')
      .select(['id', 'customer_id', 'name', 'policy_json'])
      .where('revoked_at', 'is', null)
      .where('customer_id', 'is not', null)
      .where('policy_json', 'like', '%spendingLimitMicros%');
    if (customerId !== undefined) query = query.where('customer_id', '=', customerId);
    for (const key of await query.execute()) {
      const policy = parsePolicy(key.policy_json);
      if (policy.spendingLimitMicros === undefined) continue;
      const since = periodStartMs(policy.spendingPeriod, now);
      const spent = await keySpendMicros(this.storage.db, Number(key.id), since);
      await this.spending(
        Number(key.customer_id),
        Number(key.id),
        spent,
        policy.spendingLimitMicros,
        `${policy.spendingPeriod ?? 'lifetime'}:${since}`,
        key.name,
      );
    }
  }

  /** Spending of a key against its limit: alerts at 80 % and at 100 %, once per period. */
  async spending(
    customerId: number,
    keyId: number,
    spentMicros: number,
    limitMicros: number,
    periodKey: string,
    keyName?: string | null,
  ): Promise<void> {
    if (limitMicros <= 0) return;
    const named = keyName ? { key_name: keyName } : {};
    if (spentMicros >= limitMicros) {
      await this.raise(customerId, {
        cause: 'spending_limit_reached',
        causeKey: `key:${keyId}:${periodKey}`,
        keyId,
        details: { spent_micros: spentMicros, limit_micros: limitMicros, ...named },
      });
    }
    if (spentMicros * 5 >= limitMicros * 4) {
      await this.raise(customerId, {
        cause: 'spending_limit_80',
        causeKey: `key:${keyId}:${periodKey}`,
        keyId,
        details: { spent_micros: spentMicros, limit_micros: limitMicros, ...named },
      });
    }
  }

  /** A first use of a key from a network (IPv4 /24, IPv6 /48) it was not used from before; the first network ever is not alerted. */
  private readonly knownNetworks = new Set<string>();

  /** A dashboard sign-in from a network (IPv4 /24, IPv6 /48) the customer never signed in from; the first one is not alerted. */
  async signInFrom(customerId: number, ip: string): Promise<void> {
    const network = networkOf(ip);
    const networkHash = this.box.hash('network', `sign-in:${network}`);
    const db = this.storage.db;
    const earlier = await db.selectFrom('sign_in_networks').select('network_hash').where('customer_id', '=', customerId).limit(1).execute();
    const inserted = await db
      .insertInto('sign_in_networks')
      .values({ customer_id: customerId, network_hash: networkHash, first_seen_at: this.clock.nowMs() })
      .onConflict((conflict) => conflict.columns(['customer_id', 'network_hash']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0 || earlier.length === 0) return;
    await this.raise(customerId, { cause: 'new_sign_in_network', causeKey: `sign-in:${networkHash}`, details: { network } });
  }

  async networkUse(customerId: number, keyId: number, ip: string): Promise<void> {
    const network = networkOf(ip);
    const memo = `${keyId}|${network}`;
    if (this.knownNetworks.has(memo)) return;
    if (this.knownNetworks.size > 100_000) this.knownNetworks.clear();
    const networkHash = this.box.hash('network', network);
    const db = this.storage.db;
    const seen = await db.selectFrom('key_networks').select('network_hash').where('key_id', '=', keyId).execute();
    if (seen.some((row) => row.network_hash === networkHash)) {
      this.knownNetworks.add(memo);
      return;
    }
    // The alert first: once the network row exists, its alert does too.
    if (seen.length > 0) {
      await this.raise(customerId, { cause: 'new_network', causeKey: `key:${keyId}:${networkHash}`, keyId, details: { network } });
    }
    await db
      .insertInto('key_networks')
      .values({ key_id: keyId, network_hash: networkHash, first_seen_at: this.clock.nowMs() })
      .onConflict((conflict) => conflict.columns(['key_id', 'network_hash']).doNothing())
      .execute();
    this.knownNetworks.add(memo);
  }

  async list(customerId: number, options: { includeAcknowledged?: boolean } = {}) {
    await this.scanExpiry(customerId);
    await this.scanSpending(customerId);
    let query = this.storage.db
      .selectFrom('account_alerts')
      .select(['id', 'key_id', 'cause', 'cause_key', 'details_json', 'created_at', 'acknowledged_at'])
      .where('customer_id', '=', customerId);
    if (!options.includeAcknowledged) query = query.where('acknowledged_at', 'is', null);
    const rows = await query.orderBy('id', 'desc').limit(500).execute();
    return rows.map((row) => ({
      id: Number(row.id),
      key_id: row.key_id === null ? null : Number(row.key_id),
      cause: row.cause,
      details: JSON.parse(row.details_json) as Record<string, unknown>,
      created_at: new Date(Number(row.created_at)).toISOString(),
      acknowledged: row.acknowledged_at !== null,
      acknowledged_at: row.acknowledged_at === null ? null : new Date(Number(row.acknowledged_at)).toISOString(),
    }));
  }

  async acknowledge(customerId: number, alertId: number): Promise<{ id: number; acknowledged: true }> {
    const db = this.storage.db;
    const row = await db
      .selectFrom('account_alerts')
      .select(['id', 'acknowledged_at'])
      .where('id', '=', alertId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', 'Alert not found');
    if (row.acknowledged_at === null)
      await db.updateTable('account_alerts').set({ acknowledged_at: this.clock.nowMs() }).where('id', '=', alertId).execute();
    return { id: alertId, acknowledged: true };
  }
}

export function networkOf(ip: string): string {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.\d+$/.exec(ip);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  const groups = ip.split(':').slice(0, 3);
  return `${groups.join(':')}::/48`;
}
