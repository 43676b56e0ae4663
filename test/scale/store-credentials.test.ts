/**
 * Scale-out refuses stores that let anyone in, found by really connecting with the credentials taken out: this
 * machine's Redis (no password) and PostgreSQL (trust, when TEST_DATABASE_URL is set; a wire-level PostgreSQL of
 * this file's own otherwise) are open; a Redis with `requirepass` and a PostgreSQL that asks for a password are
 * not. A start on open stores fails naming each store and the setting; the setting lets it start with a warning.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/env.js';
import { checkStoreCredentials, probePostgres, probeRedis } from '../../src/scale/store-credentials.js';
import { createTestContext } from '../helpers/context.js';
import { openTestStorage, TEST_DATABASE_URL } from '../helpers/databases.js';
import { PrivateRedis } from './harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SSL_REQUEST_CODE = 80877103;

/** Speaks just enough of the PostgreSQL protocol to authenticate: `trust` lets every user in, `password` asks. */
class WirePostgres {
  readonly users: string[] = [];
  /** Password messages received (the probe must never send one). */
  passwords = 0;
  private readonly server: net.Server;

  private constructor(mode: 'trust' | 'password') {
    this.server = net.createServer((socket) => {
      let buffered = Buffer.alloc(0);
      let started = false;
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        // After the start-up packet, whatever the client sends (Terminate, a password) ends the conversation.
        if (started) {
          if (chunk[0] === 0x70) this.passwords += 1;
          return void socket.end();
        }
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length < 8 || buffered.length < buffered.readInt32BE(0)) return;
        const length = buffered.readInt32BE(0);
        const packet = buffered.subarray(0, length);
        buffered = buffered.subarray(length);
        if (packet.readInt32BE(4) === SSL_REQUEST_CODE) return void socket.write('N');
        started = true;
        const fields = packet.subarray(8).toString('utf8').split('\0');
        this.users.push(fields[fields.indexOf('user') + 1] ?? '');
        if (mode === 'password') return void socket.write(authentication(3)); // cleartext password, please
        socket.write(Buffer.concat([authentication(0), Buffer.from([0x5a, 0, 0, 0, 5, 0x49])])); // ok, ready (idle)
      });
    });
  }

  static async start(mode: 'trust' | 'password'): Promise<WirePostgres> {
    const wire = new WirePostgres(mode);
    await new Promise<void>((resolve) => wire.server.listen(0, '127.0.0.1', resolve));
    return wire;
  }

  url(credentials: string): string {
    return `postgres://${credentials}@127.0.0.1:${(this.server.address() as net.AddressInfo).port}/switchyard`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function authentication(code: number): Buffer {
  const message = Buffer.alloc(9);
  message.write('R', 0);
  message.writeInt32BE(8, 1);
  message.writeInt32BE(code, 5);
  return message;
}

function capturedLogger() {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    }),
  );
  return { logger, lines };
}

describe('stores that accept connections without credentials', () => {
  let trusting: WirePostgres;
  let asking: WirePostgres;
  let lockedRedis: PrivateRedis;
  /** This machine's PostgreSQL when there is one, else the wire-level one that lets everyone in. */
  let openDatabaseUrl: string;

  beforeAll(async () => {
    [trusting, asking, lockedRedis] = await Promise.all([
      WirePostgres.start('trust'),
      WirePostgres.start('password'),
      PrivateRedis.start(['--requirepass', 'redis-secret-for-tests']),
    ]);
    openDatabaseUrl = TEST_DATABASE_URL ?? trusting.url('switchyard:db-password');
  });
  afterAll(async () => {
    await Promise.all([trusting.close(), asking.close(), lockedRedis.kill()]);
  });

  it('finds a Redis that answers without AUTH, whatever password the URL carries, and not one with requirepass', async () => {
    expect(await probeRedis(REDIS_URL)).toMatchObject({ store: 'Redis', target: '127.0.0.1:6379' });
    expect(await probeRedis(REDIS_URL.replace('redis://', 'redis://:some-password@'))).toMatchObject({ store: 'Redis' });
    expect(await probeRedis(`redis://:redis-secret-for-tests@127.0.0.1:${lockedRedis.port}`)).toBeNull();
  });

  it('finds a PostgreSQL that lets a user in without a password, and not one that asks for it', async () => {
    const open = await probePostgres(trusting.url('switchyard:db-password'));
    expect(open).toMatchObject({ store: 'PostgreSQL', how: 'user "switchyard" without a password' });
    expect(await probePostgres(asking.url('switchyard:db-password'))).toBeNull();
    // Both the configured user and `postgres` were tried, and neither offered a password (not even an empty one).
    expect(asking.users).toEqual(['switchyard', 'postgres']);
    expect(asking.passwords).toBe(0);
    if (TEST_DATABASE_URL) expect(await probePostgres(TEST_DATABASE_URL)).toMatchObject({ store: 'PostgreSQL' });
  });

  it('refuses to start scale-out on open stores, naming each store and the setting', async () => {
    const storage = await openTestStorage();
    try {
      const started = createTestContext({
        storage,
        config: { scaleOut: { enabled: true } },
        env: { REDIS_URL, DATABASE_URL: openDatabaseUrl },
      });
      const error = await started.then(
        async (context) => {
          await context.close();
          return null;
        },
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain('scale-out refused to start');
      expect(message).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/\w+ accepts user "\w+" without a password/);
      expect(message).toContain('Redis at 127.0.0.1:6379 accepts commands without AUTH');
      expect(message).toContain('scaleOut.allowUnauthenticatedStores: true');
      expect(message).not.toContain('db-password');
    } finally {
      await storage.destroy();
    }
  });

  it('starts on a Redis with a password and a PostgreSQL that asks for one, without a warning', async () => {
    const { logger, lines } = capturedLogger();
    const open = await checkStoreCredentials({
      databaseUrl: asking.url('switchyard:db-password'),
      redisUrl: `redis://:redis-secret-for-tests@127.0.0.1:${lockedRedis.port}`,
      allowUnauthenticated: false,
      logger,
    });
    expect(open).toEqual([]);
    expect(lines.join('')).toContain('refuse connections without credentials');
  });

  it('allowUnauthenticatedStores lets it start, with a warning naming the stores', async () => {
    const { logger, lines } = capturedLogger();
    const open = await checkStoreCredentials({ databaseUrl: openDatabaseUrl, redisUrl: REDIS_URL, allowUnauthenticated: true, logger });
    expect(open.map((store) => store.store)).toEqual(['PostgreSQL', 'Redis']);
    const warning = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((line) => line.level === 40);
    expect(warning?.msg).toContain('UNAUTHENTICATED STORES');
    expect(warning?.msg).toContain('scaleOut.allowUnauthenticatedStores');
  });

  it.skipIf(!TEST_DATABASE_URL)('a whole scale-out node starts on trust PostgreSQL with the setting, and says so', async () => {
    const context = await createTestContext({
      config: { scaleOut: { enabled: true, allowUnauthenticatedStores: true } },
      env: { REDIS_URL, DATABASE_URL: TEST_DATABASE_URL! },
    });
    try {
      expect(context.services.scale).not.toBeNull();
      const warning = context.logs.find((line) => line.includes('UNAUTHENTICATED STORES'));
      expect(warning).toContain('"level":40');
      expect(warning).toContain('PostgreSQL at 127.0.0.1:5432');
    } finally {
      await context.close();
    }
  });
});
