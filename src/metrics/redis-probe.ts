/** Whether Redis answers a PING from this node (metrics); one lazily connected client of its own. */
import { newRedis } from '../kernel/redis-client.js';

const PING_TIMEOUT_MS = 1_000;

export interface RedisProbe {
  up(): Promise<boolean>;
  close(): void;
}

export function createRedisProbe(url: string): RedisProbe {
  const client = newRedis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: PING_TIMEOUT_MS });
  // Failures show as redis_up 0; the domain clients log their own connection errors.
  client.on('error', () => undefined);
  return {
    async up() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('redis ping timed out')), PING_TIMEOUT_MS);
      });
      try {
        return (await Promise.race([client.ping(), timeout])) === 'PONG';
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      client.disconnect();
    },
  };
}
