/**
 * Desktop presence: each heartbeat stamps the customer's row; a customer is online until `ttlSeconds` after
 * the last one. `first_seen_at` is the start of the current online streak (it restarts after a lapse).
 */
import { sql } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso, storableText } from './text.js';

export class Presence {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  private get ttlMs(): number {
    return this.ttlSeconds * 1000;
  }

  async heartbeat(customerId: number, client: { appVersion?: string; os?: string }) {
    const now = this.clock.nowMs();
    const lapsedBefore = now - this.ttlMs;
    const appVersion = client.appVersion === undefined ? null : storableText(client.appVersion);
    const os = client.os === undefined ? null : storableText(client.os);
    await this.storage.db
      .insertInto('desktop_presence')
      .values({ customer_id: customerId, app_version: appVersion, os, first_seen_at: now, last_seen_at: now })
      .onConflict((conflict) =>
        conflict.column('customer_id').doUpdateSet({
          first_seen_at: sql<number>`CASE WHEN desktop_presence.last_seen_at < ${lapsedBefore} THEN ${now} ELSE desktop_presence.first_seen_at END`,
          last_seen_at: now,
          app_version: sql<string | null>`COALESCE(${appVersion}, desktop_presence.app_version)`,
          os: sql<string | null>`COALESCE(${os}, desktop_presence.os)`,
        }),
      )
      .execute();
    return { online: true, last_seen_at: iso(now), online_until: iso(now + this.ttlMs), ttl_seconds: this.ttlSeconds };
  }

  /** Customers whose last heartbeat is younger than the configured time, most recent first. */
  async online(limit: number) {
    const now = this.clock.nowMs();
    const since = now - this.ttlMs;
    const online = this.storage.db.selectFrom('desktop_presence as p').where('p.last_seen_at', '>=', since);
    const [rows, count] = await Promise.all([
      online
        .innerJoin('customers as c', 'c.id', 'p.customer_id')
        .select(['p.customer_id', 'c.email', 'p.app_version', 'p.os', 'p.first_seen_at', 'p.last_seen_at'])
        .orderBy('p.last_seen_at', 'desc')
        .orderBy('p.customer_id')
        .limit(limit)
        .execute(),
      online.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      ttl_seconds: this.ttlSeconds,
      online_count: Number(count.n),
      data: rows.map((row) => ({
        customer_id: Number(row.customer_id),
        email: row.email,
        app_version: row.app_version,
        os: row.os,
        online_since: iso(row.first_seen_at),
        last_seen_at: iso(row.last_seen_at),
        online_until: iso(Number(row.last_seen_at) + this.ttlMs),
      })),
    };
  }
}
