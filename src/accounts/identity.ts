/**
 * The one place where a bearer value becomes a principal. Accepted: the static operator token, managed keys
 * issued by an operator, the customer's System Token (wallet-linked key), the username token and User API Keys.
 * Every failure (missing, malformed, unknown, revoked, expired, disabled customer) is the same 401. There is no
 * cache, so a revocation is effective on the very next request on every node sharing the database.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { constantTimeEqual, isWellFormedKey } from './key-format.js';
import type { KeyRepository } from './key-repository.js';
import { parsePolicy, type Principal } from './principal.js';

export const UNAUTHENTICATED_MESSAGE = 'Missing or invalid bearer token';

export function unauthenticated(): AppError {
  return new AppError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
}

/** Extracts the token from `Authorization: Bearer …`, or from `x-api-key` as Anthropic clients send it. */
export function bearerFrom(headers: Record<string, string | string[] | undefined>, allowApiKeyHeader: boolean): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : undefined;
  }
  const apiKey = headers['x-api-key'];
  if (allowApiKeyHeader && typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return undefined;
}

export class Identity {
  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
    private readonly staticToken: string | undefined,
  ) {}

  /** Last-use times are written at most once a minute per key, off the request path. */
  private readonly lastTouchMs = new Map<number, number>();

  private recordUse(keyId: number, nowMs: number): void {
    const previous = this.lastTouchMs.get(keyId);
    if (previous !== undefined && nowMs - previous < 60_000) return;
    this.lastTouchMs.set(keyId, nowMs);
    if (this.lastTouchMs.size > 100_000) this.lastTouchMs.clear();
    void this.keys.touch(this.storage.db, keyId, nowMs).catch(() => undefined);
  }

  async resolve(token: string | undefined): Promise<Principal> {
    if (token === undefined || token.length > 256) throw unauthenticated();
    if (this.staticToken !== undefined && constantTimeEqual(token, this.staticToken)) {
      return { kind: 'operator', source: 'static', keyId: null };
    }
    if (!isWellFormedKey(token)) throw unauthenticated();

    const row = await this.keys.findForAuthentication(this.storage.db, token);
    const now = this.clock.nowMs();
    if (!row || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) throw unauthenticated();

    if (row.role === 'operator') return { kind: 'operator', source: 'managed', keyId: row.id };
    if (row.customer_id === null || row.customer_status !== 'active') throw unauthenticated();
    this.recordUse(row.id, now);
    return {
      kind: 'customer',
      customerId: row.customer_id,
      keyId: row.id,
      keyKind: row.kind,
      policy: parsePolicy(row.policy_json),
      vip: row.customer_vip === 1,
    };
  }
}
