/**
 * Cross-node fan-out through Redis pub/sub (only when REDIS_URL is set). The appending node delivers to its
 * own subscribers directly and publishes, per project, the range of sequence numbers it just committed; other
 * nodes read those events back from the log and deliver them (remote-feed.ts). The log stays the source of
 * truth: a message lost here is recovered by the client's Last-Event-ID replay or the next event's hole fill.
 *
 * Whoever reaches Redis can publish on the channel, so nothing heard there is taken on trust: a message must be
 * sealed under the deployment's key (relay-envelope.ts), fresh, and well-formed, else it is dropped and counted;
 * and even a sealed message only names events, it never carries what a subscriber is sent, nor moves a sequence.
 */
import type { Redis } from 'ioredis';
import { newRedis } from '../../kernel/redis-client.js';
import type { Logger } from 'pino';
import { randomBase62 } from '../../kernel/ids.js';
import { RelayEnvelope, type RelayRejections } from './relay-envelope.js';
import type { ProjectEvent } from './types.js';

export const PROJECT_EVENTS_CHANNEL = 'switchyard:project-events';
/** A message older (or newer) than this, by the publisher's clock, is a replay or from a badly skewed node. */
export const RELAY_MAX_AGE_MS = 60_000;
/** Projects one message may name (a commit groups at most 500 appends). */
const REFERENCES_MAX = 500;
const PROJECT_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Events another node committed: `fromSeq`..`toSeq` of one project's log. */
export interface RelayReference {
  projectId: string;
  fromSeq: number;
  toSeq: number;
}

/** What travels inside the envelope. */
interface RelayPayload {
  node: string;
  at: number;
  refs: [string, number, number][];
}

export interface RedisRelayOptions {
  redisUrl: string;
  serverSecret: string;
  logger: Logger;
  nowMs(): number;
  rejections: RelayRejections;
  onRemote(references: RelayReference[]): void;
  /** The subscription came back after a Redis outage: what was published meanwhile never arrived here. */
  onResubscribed?(): void;
}

export class RedisRelay {
  private readonly node = randomBase62(16);
  private readonly envelope: RelayEnvelope;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  constructor(private readonly options: RedisRelayOptions) {
    this.envelope = new RelayEnvelope(options.serverSecret);
    this.publisher = newRedis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    this.subscriber = newRedis(options.redisUrl, { lazyConnect: true });
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => this.options.logger.warn({ err: error }, 'redis event relay error'));
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
        .then(() => this.options.onResubscribed?.())
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'redis event relay resubscribe failed'));
    });
  }

  publish(events: ProjectEvent[]): void {
    const payload: RelayPayload = { node: this.node, at: this.options.nowMs(), refs: referencesOf(events) };
    this.publisher
      .publish(PROJECT_EVENTS_CHANNEL, this.envelope.seal(JSON.stringify(payload)))
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'redis event publish failed'));
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
  }

  private receive(text: string): void {
    const { rejections } = this.options;
    const opened = this.envelope.open(text);
    if (!opened.ok) return rejections.reject(opened.reason, { bytes: text.length });
    const payload = parsePayload(opened.payload);
    if (!payload) return rejections.reject('malformed', { bytes: text.length });
    if (payload.node === this.node) return;
    if (Math.abs(this.options.nowMs() - payload.at) > RELAY_MAX_AGE_MS)
      return rejections.reject('stale', { node: payload.node, at: payload.at });
    this.options.onRemote(payload.refs.map(([projectId, fromSeq, toSeq]) => ({ projectId, fromSeq, toSeq })));
  }
}

/** One reference per project: its events of one commit hold consecutive sequence numbers. */
function referencesOf(events: ProjectEvent[]): [string, number, number][] {
  const ranges = new Map<string, [string, number, number]>();
  for (const event of events) {
    const range = ranges.get(event.projectId);
    if (!range) ranges.set(event.projectId, [event.projectId, event.seq, event.seq]);
    else {
      range[1] = Math.min(range[1], event.seq);
      range[2] = Math.max(range[2], event.seq);
    }
  }
  return [...ranges.values()];
}

function isSeq(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

function parsePayload(text: string): RelayPayload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { node, at, refs } = value as Partial<RelayPayload>;
  if (typeof node !== 'string' || !Number.isSafeInteger(at) || !Array.isArray(refs) || refs.length > REFERENCES_MAX) return null;
  const valid = refs.every(
    (ref) =>
      Array.isArray(ref) &&
      ref.length === 3 &&
      typeof ref[0] === 'string' &&
      PROJECT_ID_PATTERN.test(ref[0]) &&
      isSeq(ref[1]) &&
      isSeq(ref[2]) &&
      ref[1] <= ref[2],
  );
  return valid ? { node, at: at!, refs } : null;
}
