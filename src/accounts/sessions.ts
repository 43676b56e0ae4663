/**
 * Dashboard sessions. The cookie carries an opaque 256-bit id; the database holds only its keyed hash, the
 * absolute expiry and the last use (idle expiry). The CSRF token is bound to the session: an HMAC of the
 * session id under its own derived key, so it needs no storage and cannot be forged without the cookie.
 *
 * A session resolves to a customer principal that customer handlers accept unchanged: `keyKind` is `wallet`
 * and `keyId` is the customer's System Token (so it may manage keys as the System Token may), its policy allows
 * only the `account` surface (narrowed further by the policy of the key it was derived from, for a session opened
 * from an SSO link), and `session.id` marks it as a dashboard session. `session.authenticatedAt` is when a password
 * or an authenticator code was last checked for it (null for a session opened from a link): credential-rules.ts
 * lets only a recent one mint or change credentials.
 */
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { parsePolicy, type CustomerPrincipal, type KeyPolicy, type Surface } from './principal.js';
import { SecretBox } from './secrets.js';

export const SESSION_COOKIE = 'sy_session';
export const CSRF_COOKIE = 'sy_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export interface SessionPrincipal extends CustomerPrincipal {
  /** `derived`: opened from a link, so `policy` is the minting key's and the routes check its surfaces. */
  session: { id: number; authenticatedAt: number | null; derived: boolean };
}

/** How a session was opened: with a checked password (or code), or from a link carrying a key's policy. */
export type SessionOrigin = { authenticated: true } | { authenticated: false; policy: KeyPolicy };

/** Surfaces a dashboard session reaches at most (app.ts accepts the session cookie on these routes only). */
const SESSION_SURFACES: Surface[] = ['account', 'projects'];

/** The dashboard's own policy (the account surface), narrowed by the policy a link carried. */
export function sessionPolicy(carried: KeyPolicy | null): KeyPolicy {
  if (carried === null) return { surfaces: ['account'] };
  const surfaces = (carried.surfaces ?? SESSION_SURFACES).filter((surface) => SESSION_SURFACES.includes(surface));
  const { agentRuntime: _runtime, rpc: _rpc, ...rest } = carried;
  return { ...rest, surfaces };
}

export function isSessionPrincipal(principal: unknown): principal is SessionPrincipal {
  return typeof principal === 'object' && principal !== null && 'session' in principal;
}

export interface SessionRules {
  idleMs: number;
  absoluteMs: number;
}

export interface OpenedSession {
  /** The cookie value (shown to the browser once, never stored). */
  token: string;
  csrfToken: string;
  id: number;
  expiresAt: number;
}

/** Last-use writes happen at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

export class SessionService {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly rules: SessionRules,
  ) {}

  csrfFor(token: string): string {
    return this.box.hash('csrf', token);
  }

  async open(customerId: number, origin: SessionOrigin): Promise<OpenedSession> {
    const token = SecretBox.token();
    const now = this.clock.nowMs();
    const expiresAt = now + this.rules.absoluteMs;
    const row = await this.storage.db
      .insertInto('dashboard_sessions')
      .values({
        customer_id: customerId,
        session_hash: this.box.hash('session', token),
        created_at: now,
        last_seen_at: now,
        expires_at: expiresAt,
        authenticated_at: origin.authenticated ? now : null,
        policy_json: origin.authenticated ? null : JSON.stringify(origin.policy),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { token, csrfToken: this.csrfFor(token), id: Number(row.id), expiresAt };
  }

  /** The principal of a live session, or null (unknown, ended, idle too long, past its absolute expiry). */
  async resolve(token: string): Promise<SessionPrincipal | null> {
    if (token.length < 20 || token.length > 100) return null;
    const now = this.clock.nowMs();
    const row = await this.storage.db
      .selectFrom('dashboard_sessions as s')
      .innerJoin('customers as c', 'c.id', 's.customer_id')
      .select([
        's.id',
        's.customer_id',
        's.last_seen_at',
        's.expires_at',
        's.ended_at',
        's.authenticated_at',
        's.policy_json',
        'c.status',
        'c.vip',
      ])
      .where('s.session_hash', '=', this.box.hash('session', token))
      .executeTakeFirst();
    if (!row || row.ended_at !== null || row.status !== 'active') return null;
    if (Number(row.expires_at) <= now || Number(row.last_seen_at) + this.rules.idleMs <= now) return null;
    if (now - Number(row.last_seen_at) >= TOUCH_EVERY_MS) {
      await this.storage.db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute();
    }
    const systemToken = await this.storage.db
      .selectFrom('api_keys')
      .select('id')
      .where('customer_id', '=', row.customer_id)
      .where('kind', '=', 'wallet')
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    return {
      kind: 'customer',
      customerId: Number(row.customer_id),
      keyId: systemToken ? Number(systemToken.id) : 0,
      keyKind: 'wallet',
      policy: sessionPolicy(row.policy_json === null ? null : parsePolicy(row.policy_json)),
      vip: Number(row.vip) === 1,
      session: {
        id: Number(row.id),
        authenticatedAt: row.authenticated_at === null ? null : Number(row.authenticated_at),
        derived: row.policy_json !== null,
      },
    };
  }

  /** Records a password or code just checked for the session (re-authentication); it counts as recent from now. */
  async reauthenticated(sessionId: number): Promise<void> {
    await this.storage.db
      .updateTable('dashboard_sessions')
      .set({ authenticated_at: this.clock.nowMs() })
      .where('id', '=', sessionId)
      .where('ended_at', 'is', null)
      .execute();
  }

  async end(sessionId: number): Promise<void> {
    await this.storage.db
      .updateTable('dashboard_sessions')
      .set({ ended_at: this.clock.nowMs() })
      .where('id', '=', sessionId)
      .where('ended_at', 'is', null)
      .execute();
  }

  /** Ends every live session of a customer, except `keep` (the caller's own, when it stays signed in). */
  async endAll(customerId: number, keep?: number): Promise<number> {
    let query = this.storage.db
      .updateTable('dashboard_sessions')
      .set({ ended_at: this.clock.nowMs() })
      .where('customer_id', '=', customerId)
      .where('ended_at', 'is', null);
    if (keep !== undefined) query = query.where('id', '!=', keep);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

/** Reads one cookie from a `Cookie` header (no decoding: our values are base64url). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
