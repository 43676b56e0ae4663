/**
 * Operator console sessions. An operator proves itself once with the static token or a managed operator key;
 * the service then issues a fresh managed operator key that expires after `OPERATOR_SESSION_MS` and hands it to
 * the browser only in an HttpOnly cookie. So the session is an ordinary key: revocable (sign-out revokes it, and
 * so does `DELETE /api/admin/keys/{id}`), expiring, visible in the key table, and nothing new is stored.
 *
 * The cookie is accepted only on operator routes (`/api/admin/*`, see the auth hook), never as a bearer
 * elsewhere; state-changing requests need the CSRF token bound to it (an HMAC of the cookie value).
 */
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Identity } from './identity.js';
import type { KeyRepository } from './key-repository.js';
import type { OperatorPrincipal } from './principal.js';
import type { SecretBox } from './secrets.js';

export const OPERATOR_COOKIE = 'sy_operator';
export const OPERATOR_CSRF_COOKIE = 'sy_operator_csrf';
/** Operator console sessions end after 8 hours (dashboard sessions last days). */
export const OPERATOR_SESSION_MS = 8 * 3_600_000;
/** The name the session's key carries in the key table. */
export const OPERATOR_SESSION_KEY_NAME = 'operator console session';

export interface OperatorSessionPrincipal extends OperatorPrincipal {
  operatorSession: true;
}

export function isOperatorSession(principal: unknown): principal is OperatorSessionPrincipal {
  return typeof principal === 'object' && principal !== null && (principal as { operatorSession?: unknown }).operatorSession === true;
}

export interface OpenedOperatorSession {
  token: string;
  csrfToken: string;
  keyId: number;
  expiresAt: number;
}

export class OperatorSessions {
  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly identity: Identity,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  csrfFor(token: string): string {
    return this.box.hash('operator-csrf', token);
  }

  /** Opens a session for whoever `credential` proves to be; null unless it is an operator. */
  async open(credential: string): Promise<OpenedOperatorSession | null> {
    const principal = await this.identity.resolve(credential).catch(() => null);
    if (principal === null || principal.kind !== 'operator') return null;
    const expiresAt = this.clock.nowMs() + OPERATOR_SESSION_MS;
    const issued = await this.keys.issue(this.storage.db, {
      customerId: null,
      kind: 'managed',
      role: 'operator',
      name: OPERATOR_SESSION_KEY_NAME,
      expiresAt,
    });
    return { token: issued.plaintext, csrfToken: this.csrfFor(issued.plaintext), keyId: issued.row.id, expiresAt };
  }

  /** The operator behind a session cookie, or null (unknown, revoked, expired, not an operator key). */
  async resolve(token: string): Promise<OperatorSessionPrincipal | null> {
    const principal = await this.identity.resolve(token).catch(() => null);
    if (principal === null || principal.kind !== 'operator' || principal.source !== 'managed') return null;
    return { ...principal, operatorSession: true };
  }

  async end(principal: OperatorSessionPrincipal): Promise<void> {
    if (principal.keyId !== null) await this.keys.revoke(this.storage.db, principal.keyId);
  }
}
