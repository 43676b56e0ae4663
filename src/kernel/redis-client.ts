/**
 * The Redis client class, loaded on first use. Only scale-out and shared rate limits talk to Redis, so a process
 * on SQLite never loads the client's package (about 150 ms of start-up, paid by every process otherwise).
 */
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

let RedisClass: typeof Redis | undefined;

/** A new client for `url` (ioredis, with its own options). */
export function newRedis(url: string, options: RedisOptions): Redis {
  RedisClass ??= (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
  return new RedisClass(url, options);
}
