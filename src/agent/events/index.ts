/**
 * Project event log composition: the SQL log (group commit, retention), the in-process hub, the optional
 * Redis relay for other nodes, and the SSE streams of connected clients.
 */
import type { Writable } from 'node:stream';
import { EventHub } from './event-hub.js';
import { SqlEventLog } from './event-log.js';
import { EventStream } from './event-stream.js';
import { RelayRejections, type RelayRejectReason } from './relay-envelope.js';
import { RedisRelay } from './redis-relay.js';
import { RemoteEventFeed } from './remote-feed.js';
import type { ProjectEvent, ProjectEventListener, ProjectEventLog, ProjectEventStats } from './types.js';
import type { WriteFence } from '../../scale/fence.js';
import type { BaseDeps } from '../../storage/base-deps.js';

/** What this domain takes from the composition root. */
export type ProjectEventDeps = BaseDeps;

export type { ProjectEvent, ProjectEventStats } from './types.js';

export interface ProjectEvents extends ProjectEventLog {
  /** Streams the project's events as SSE frames into `sink` until the client leaves, overflows or the service closes. */
  stream(options: { projectId: string; after: number | null; sink: Writable }): Promise<void>;
  /** Live events of one project on this node (committed, in sequence order); returns the unsubscribe function. */
  subscribe(projectId: string, listener: ProjectEventListener): () => void;
  /** Logged events after `afterSeq`, oldest first. */
  readAfter(projectId: string, afterSeq: number, limit: number): Promise<ProjectEvent[]>;
  /** Applies retention now (it otherwise runs in the background shortly after appends). */
  prune(): Promise<void>;
  stats(): ProjectEventStats;
  /** Relay messages from Redis dropped because they failed verification, by reason, since the start. */
  relayRejections(): Record<RelayRejectReason, number>;
  /** Resolves once every relayed reference heard so far was read back and delivered. */
  remoteIdle(): Promise<void>;
  /** Live subscribers of one project on this node (keeps the project's app-server from idling out). */
  subscriberCount(projectId: string): number;
  /**
   * Ends every open stream (the HTTP server calls this before it stops accepting connections); `draining` (rolling
   * restart) sends each client a final `reconnect` frame with its `last_event_id` first.
   */
  endStreams(reason?: 'draining'): void;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createProjectEvents(deps: ProjectEventDeps, options: { fence?: WriteFence } = {}): Promise<ProjectEvents> {
  const { config, logger } = deps;
  const hub = new EventHub();
  let relay: RedisRelay | null = null;
  const log = new SqlEventLog({
    storage: deps.storage,
    clock: deps.clock,
    logger,
    retention: config.agent.eventRetention,
    fence: options.fence,
    onCommitted: (events) => {
      hub.publish(events);
      relay?.publish(events);
    },
  });
  const rejections = new RelayRejections(logger.child({ domain: 'event-relay' }), () => deps.clock.nowMs());
  const remote = new RemoteEventFeed({ log, hub, rejections, logger });
  relay = config.env.redisUrl ? redisRelay(deps, config.env.redisUrl, { log, hub, rejections, remote }) : null;
  const streams = new Set<EventStream>();
  const counters = { overflowDisconnects: 0, queueLengthMaxSeen: 0 };

  return {
    append: (projectId, type, data) => log.append(projectId, type, data),
    subscribe: (projectId, listener) => hub.subscribe(projectId, listener),
    readAfter: (projectId, afterSeq, limit) => log.readAfter(projectId, afterSeq, limit),
    prune: () => log.prune(),
    async stream({ projectId, after, sink }) {
      const stream = new EventStream(
        { projectId, after, sink, heartbeatMs: config.agent.heartbeatMs, queueMax: config.agent.subscriberQueueMax },
        {
          log,
          hub,
          onEnd: ({ queueLengthMaxSeen, overflowed }) => {
            counters.queueLengthMaxSeen = Math.max(counters.queueLengthMaxSeen, queueLengthMaxSeen);
            if (overflowed) counters.overflowDisconnects += 1;
          },
        },
      );
      streams.add(stream);
      try {
        await stream.run();
      } finally {
        streams.delete(stream);
      }
    },
    subscriberCount: (projectId) => hub.subscriberCount(projectId),
    stats: () => ({
      subscribers: hub.subscriberCount(),
      overflowDisconnects: counters.overflowDisconnects,
      commits: log.commits,
      queueLengthMaxSeen: Math.max(counters.queueLengthMaxSeen, ...[...streams].map((stream) => stream.queueLengthMaxSeen)),
    }),
    relayRejections: () => rejections.totals(),
    remoteIdle: () => remote.idle(),
    endStreams(reason) {
      for (const stream of streams) stream.stop(reason);
    },
    async start() {
      await relay?.start();
    },
    async close() {
      for (const stream of streams) stream.stop();
      await log.close();
      await relay?.close();
      await remote.idle();
    },
  };
}

/**
 * Events of the other nodes through Redis. After a Redis outage each subscribed project's newest logged event is
 * delivered: a stream that missed events sees the hole and fills it from the log at once, instead of at the
 * project's next event.
 */
function redisRelay(
  deps: ProjectEventDeps,
  redisUrl: string,
  parts: { log: SqlEventLog; hub: EventHub; rejections: RelayRejections; remote: RemoteEventFeed },
): RedisRelay {
  const { logger } = deps;
  const { log, hub } = parts;
  const resync = async () => {
    for (const projectId of hub.projectIds()) {
      const newest = await log.newest(projectId);
      if (newest) hub.publish([newest]);
    }
  };
  return new RedisRelay({
    redisUrl,
    serverSecret: deps.config.secret,
    logger,
    nowMs: () => deps.clock.nowMs(),
    rejections: parts.rejections,
    onRemote: (references) => parts.remote.note(references),
    onResubscribed: () => void resync().catch((error: unknown) => logger.warn({ err: error }, 'event resync after a Redis outage failed')),
  });
}
