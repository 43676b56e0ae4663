/**
 * Cross-node fan-out through Redis pub/sub (only when REDIS_URL is set). The appending node delivers to its
 * own subscribers directly and publishes the committed events; other nodes deliver what they receive. The
 * log stays the source of truth: a message lost here is recovered by the client's Last-Event-ID replay.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { randomBase62 } from '../../kernel/ids.js';
import type { ProjectEvent } from './types.js';

export const PROJECT_EVENTS_CHANNEL = 'switchyard:project-events';

interface RelayMessage {
  node: string;
  events: ProjectEvent[];
}

export class RedisRelay {
  private readonly node = randomBase62(16);
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
    private readonly onRemote: (events: ProjectEvent[]) => void,
    /** The subscription came back after a Redis outage: what was published meanwhile never arrived here. */
    private readonly onResubscribed: () => void = () => undefined,
  ) {
    this.publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    this.subscriber = new Redis(redisUrl, { lazyConnect: true });
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => this.logger.warn({ err: error }, 'redis event relay error'));
    }
  }

  async start(): Promise<void> {
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
    this.subscriber.on('message', (_channel: string, text: string) => this.receive(text));
    await this.subscriber.subscribe(PROJECT_EVENTS_CHANNEL);
    // Every later 'ready' is a reconnection. ioredis subscribes again by itself; subscribing once more (a no-op
    // for Redis) answers after that, so the catch-up reads the log only once messages flow again: an event
    // committed meanwhile is either in that read or in a message.
    this.subscriber.on('ready', () => {
      this.subscriber
        .subscribe(PROJECT_EVENTS_CHANNEL)
        .then(() => this.onResubscribed())
        .catch((error: unknown) => this.logger.warn({ err: error }, 'redis event relay resubscribe failed'));
    });
  }

  publish(events: ProjectEvent[]): void {
    const message: RelayMessage = { node: this.node, events };
    this.publisher
      .publish(PROJECT_EVENTS_CHANNEL, JSON.stringify(message))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'redis event publish failed'));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }

  private receive(text: string): void {
    let message: RelayMessage;
    try {
      message = JSON.parse(text) as RelayMessage;
    } catch {
      this.logger.warn('ignored a malformed project event relay message');
      return;
    }
    if (message.node === this.node || !Array.isArray(message.events)) return;
    this.onRemote(message.events);
  }
}
