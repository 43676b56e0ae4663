/**
 * Signed single-sign-on links to the dashboard. A token is `<payload>.<signature>`: the payload (base64url
 * JSON: customer id, random link id, expiry) signed with HMAC-SHA256 under a key derived from the server secret,
 * compared in constant time as text (so no two spellings of one signature pass). Links live at most 5 minutes
 * and are used once: the database holds a keyed hash of the whole token and its use time, and the policy of the
 * credential that minted the link, which the session it opens carries (sessions.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { parsePolicy, type KeyPolicy } from './principal.js';
import { safeEqual, type SecretBox } from './secrets.js';

export const SSO_TTL_MS = 5 * 60_000;

interface SsoPayload {
  c: number;
  j: string;
  e: number;
}

export class SsoLinks {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async issue(customerId: number, policy: KeyPolicy, ttlMs = SSO_TTL_MS): Promise<{ token: string; expiresAt: number }> {
    const now = this.clock.nowMs();
    const expiresAt = now + Math.min(ttlMs, SSO_TTL_MS);
    const payload = Buffer.from(
      JSON.stringify({ c: customerId, j: randomBytes(16).toString('base64url'), e: expiresAt } satisfies SsoPayload),
    ).toString('base64url');
    const token = `${payload}.${this.box.hash('sso', payload)}`;
    await this.storage.db
      .insertInto('sso_links')
      .values({
        customer_id: customerId,
        link_hash: this.box.hash('sso-link', token),
        expires_at: expiresAt,
        created_at: now,
        policy_json: JSON.stringify(policy),
      })
      .execute();
    return { token, expiresAt };
  }

  /** The customer and carried policy of a valid, unexpired, unused link (and marks it used); null otherwise. */
  async redeem(token: string): Promise<{ customerId: number; policy: KeyPolicy } | null> {
    if (token.length > 512) return null;
    const parts = token.split('.');
    if (parts.length !== 2) return null;
    const [payload, signature] = parts as [string, string];
    if (!safeEqual(this.box.hash('sso', payload), signature)) return null;
    // Only the canonical spelling of the payload is accepted (base64url has padding-bit aliases).
    const decoded = Buffer.from(payload, 'base64url');
    if (decoded.toString('base64url') !== payload) return null;
    let parsed: SsoPayload;
    try {
      parsed = JSON.parse(decoded.toString('utf8')) as SsoPayload;
    } catch {
      return null;
    }
    const now = this.clock.nowMs();
    if (typeof parsed.e !== 'number' || parsed.e <= now || !Number.isSafeInteger(parsed.c)) return null;
    const used = await this.storage.db
      .updateTable('sso_links')
      .set({ used_at: now })
      .where('link_hash', '=', this.box.hash('sso-link', token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .where('customer_id', '=', parsed.c)
      .returning('policy_json')
      .executeTakeFirst();
    if (used === undefined) return null;
    // A link stored before links carried a policy opens an account-only session, as links always did.
    return { customerId: parsed.c, policy: used.policy_json === null ? {} : parsePolicy(used.policy_json) };
  }
}

/** The one redirect rule of the server and the pages (kernel/return-to.ts). */
export { DEFAULT_RETURN_TO, safeReturnTo } from '../kernel/return-to.js';
