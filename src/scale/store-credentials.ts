/**
 * Scale-out puts wallets, keys, leases, rate limits and the event relay in PostgreSQL and Redis, so a store that
 * lets anyone in hands all of that to whoever reaches its port. Before the nodes start, this module tries for
 * real: a connection to the same host, port (and database) with the credentials taken out — PostgreSQL as the
 * configured user and as `postgres`, each offering no password; Redis without AUTH, answering a PING. Either
 * succeeding means the store is open. Scale-out then refuses to start, unless `scaleOut.allowUnauthenticatedStores`
 * (development machines, where trust authentication is common) turns the refusal into a warning.
 */
import { newRedis } from '../kernel/redis-client.js';
import pg from 'pg';
import type { Logger } from 'pino';
import { ConfigError } from '../config/env.js';

const PROBE_TIMEOUT_MS = 3_000;

/** A store that accepted a connection without credentials. */
export interface OpenStore {
  store: 'PostgreSQL' | 'Redis';
  /** host:port (and database), never a credential. */
  target: string;
  /** How it let us in, e.g. `user "postgres" without a password`. */
  how: string;
}

class PasswordRequested extends Error {}

/** Tries the PostgreSQL of `databaseUrl` as the URL's user and as `postgres`, offering no password. */
export async function probePostgres(databaseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<OpenStore | null> {
  const url = new URL(databaseUrl);
  const target = `${url.hostname || url.searchParams.get('host') || 'localhost'}:${url.port || '5432'}${url.pathname}`;
  const configured = decodeURIComponent(url.username);
  for (const user of [...new Set([configured, 'postgres'])]) {
    const bare = new URL(url.href);
    bare.password = '';
    bare.username = user;
    // The URL as pg reads it (host, port, database, TLS), with the user set and no password at all: pg calls the
    // password function only when the server asks for one, and being asked is the answer we want. The function also
    // keeps PGPASSWORD and ~/.pgpass out of the attempt.
    const parsed = new pg.Client({ connectionString: bare.href });
    const client = new pg.Client({
      host: parsed.host,
      port: parsed.port,
      database: parsed.database,
      user: parsed.user,
      ssl: parsed.ssl as pg.ClientConfig['ssl'],
      connectionTimeoutMillis: timeoutMs,
      password: () => {
        throw new PasswordRequested('password requested');
      },
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return { store: 'PostgreSQL', target, how: `user "${parsed.user ?? 'default'}" without a password` };
    } catch {
      // Asked for a password, no such role, no pg_hba entry, unreachable: not open to this user.
    } finally {
      await endWithin(client, timeoutMs);
    }
  }
  return null;
}

/** Ends a probe connection; one the server does not close in time is dropped. */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    client.end().then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  if (!ended) client.connection.stream.destroy();
}

/** Connects to the Redis of `redisUrl` without AUTH (no user, no password) and sends a PING. */
export async function probeRedis(redisUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<OpenStore | null> {
  const url = new URL(redisUrl);
  const target = `${url.hostname}:${url.port || '6379'}`;
  const client = newRedis(`${url.protocol}//${url.host}`, {
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const answer = await client.ping();
    return answer === 'PONG' ? { store: 'Redis', target, how: 'commands without AUTH' } : null;
  } catch {
    // NOAUTH / WRONGPASS / NOPERM (the default user is off or restricted), or unreachable.
    return null;
  } finally {
    client.disconnect();
  }
}

export interface StoreCheckOptions {
  databaseUrl?: string;
  redisUrl?: string;
  allowUnauthenticated: boolean;
  logger: Logger;
}

/** Throws (naming the store and the setting) when a store is open and that is not allowed; warns when it is. */
export async function checkStoreCredentials(options: StoreCheckOptions): Promise<OpenStore[]> {
  const open = (
    await Promise.all([
      options.databaseUrl ? probePostgres(options.databaseUrl) : null,
      options.redisUrl ? probeRedis(options.redisUrl) : null,
    ])
  ).filter((store): store is OpenStore => store !== null);
  if (open.length === 0) {
    options.logger.info('scale-out: PostgreSQL and Redis refuse connections without credentials');
    return open;
  }
  const what = open.map((store) => `${store.store} at ${store.target} accepts ${store.how}`).join('; ');
  if (!options.allowUnauthenticated) {
    throw new ConfigError(
      `scale-out refused to start: ${what}. Anyone reaching that port could read and change what every node trusts; ` +
        'require credentials there (a password for every role in pg_hba.conf, requirepass or an ACL without "nopass" ' +
        'on Redis), or set scaleOut.allowUnauthenticatedStores: true on a development machine',
    );
  }
  options.logger.warn(
    { stores: open },
    `UNAUTHENTICATED STORES: ${what}; allowed by scaleOut.allowUnauthenticatedStores (development only, never in production)`,
  );
  return open;
}
