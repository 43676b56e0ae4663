/**
 * The one place where a bearer value becomes a principal. Accepted: the static operator token, managed keys
 * issued by an operator, the customer's System Token (wallet-linked key), the username token and User API Keys.
 * Every failure (missing, malformed, unknown, revoked, expired, disabled customer) is the same 401. Principals of
 * known keys are cached (principal-cache.ts): a revocation on this node is effective on the very next request,
 * one made elsewhere within the cache's poll interval.
 */
import { hash } from 'node:crypto';
import { deepFreeze } from '../config/load-config.js';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { constantTimeEqual, isWellFormedKey } from './key-format.js';
import type { KeyRepository } from './key-repository.js';
import { PrincipalCache, type CachedPrincipal } from './principal-cache.js';
import { parsePolicy, type Principal } from './principal.js';

/** How often each node reads the shared key-change counter (the cross-node revocation delay is at most this). */
export const AUTH_EPOCH_POLL_MS = 250;
const CACHED_PRINCIPALS_MAX = 10_000;

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
  private readonly cache: PrincipalCache;

  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
    private readonly staticToken: string | undefined,
    onPollError: (error: unknown) => void = () => undefined,
  ) {
    this.cache = new PrincipalCache({
      capacity: CACHED_PRINCIPALS_MAX,
      pollIntervalMs: AUTH_EPOCH_POLL_MS,
      readEpoch: async () => {
        const row = await storage.db.selectFrom('auth_epoch').select('epoch').where('id', '=', 1).executeTakeFirstOrThrow();
        return Number(row.epoch);
      },
      onPollError,
    });
    keys.onChange(() => this.cache.invalidate());
  }

  /** Starts the cache's watch of changes made by other nodes; until then every request reads the database. */
  start(): Promise<void> {
    return this.cache.start();
  }

  close(): void {
    this.cache.stop();
  }

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

    // The cache is keyed by a plain SHA-256 of the token (collision-resistant, and 7x cheaper than the keyed hash
    // the database needs); the plaintext itself is not kept.
    const fingerprint = hash('sha256', token, 'base64');
    const entry = this.cache.get(fingerprint) ?? (await this.load(token, fingerprint));
    const now = this.clock.nowMs();
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw unauthenticated();
    if (entry.principal.keyId !== null) this.recordUse(entry.principal.keyId, now);
    return entry.principal;
  }

  private async load(token: string, fingerprint: string): Promise<CachedPrincipal> {
    const generation = this.cache.generation;
    const row = await this.keys.findForAuthentication(this.storage.db, this.keys.hashOf(token));
    if (!row || row.revoked_at !== null) throw unauthenticated();
    let principal: Principal;
    if (row.role === 'operator') principal = { kind: 'operator', source: 'managed', keyId: row.id };
    else if (row.customer_id === null || row.customer_status !== 'active') throw unauthenticated();
    else {
      principal = {
        kind: 'customer',
        customerId: row.customer_id,
        keyId: row.id,
        keyKind: row.kind,
        policy: parsePolicy(row.policy_json),
        vip: row.customer_vip === 1,
      };
    }
    // Shared by every request with this key until the next change: nothing may modify it.
    const entry: CachedPrincipal = { principal: deepFreeze(principal), expiresAt: row.expires_at };
    this.cache.set(fingerprint, entry, generation);
    return entry;
  }
}
