/**
 * The operator's limits per address prefix (accounts/address-prefix.ts: /24 IPv4, /64 IPv6) on sign-ups and on
 * promotion claims: at most N of each action per prefix in a rolling 24 hours, counted in `address_events`
 * (prefixes stored as keyed hashes) so every node sees the same count. Over the limit: 429 with Retry-After. A
 * limit of 0 turns the action's limit off.
 */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { addressPrefix } from './address-prefix.js';
import type { SecretBox } from './secrets.js';

export const ADDRESS_LIMIT_WINDOW_MS = 24 * 3_600_000;
export type LimitedAction = 'signup' | 'promotion';

export class AddressLimits {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly limits: () => Record<LimitedAction, number>,
  ) {}

  /** Counts one `action` from `address`, or throws 429 when its prefix already reached the limit. */
  async admit(action: LimitedAction, address: string): Promise<void> {
    const limit = this.limits()[action];
    if (limit === 0) return;
    const now = this.clock.nowMs();
    const prefixHash = this.box.hash('address-prefix', addressPrefix(address));
    const since = now - ADDRESS_LIMIT_WINDOW_MS;
    const rows = await this.storage.db
      .selectFrom('address_events')
      .select('created_at')
      .where('action', '=', action)
      .where('prefix_hash', '=', prefixHash)
      .where('created_at', '>', since)
      .orderBy('created_at')
      .limit(limit)
      .execute();
    if (rows.length >= limit) {
      const retryAfterMs = Number(rows[0]!.created_at) + ADDRESS_LIMIT_WINDOW_MS - now;
      throw new AppError(
        'RATE_LIMITED',
        `Too many ${action === 'signup' ? 'sign-ups' : 'promotion claims'} from your network; try again later`,
        {
          retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
        },
      );
    }
    await this.storage.db.insertInto('address_events').values({ action, prefix_hash: prefixHash, created_at: now }).execute();
    // Old rows are dropped as new ones come: the table holds about a day of events.
    await this.storage.db
      .deleteFrom('address_events')
      .where('created_at', '<', since - ADDRESS_LIMIT_WINDOW_MS)
      .execute();
  }
}
