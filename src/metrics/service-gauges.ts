/**
 * The gauges of a running service, read at scrape time from the domain objects that already keep the figures
 * (nothing is counted twice). The composition root hands in plain reader functions.
 */
import type { ServiceMetrics } from './index.js';

export interface ServiceGaugeSources {
  /** Holds (billed calls not yet settled) placed by this node. */
  holdsOpen(): Promise<number>;
  /** Ledger writes queued or committing in this process. */
  ledgerQueueDepth(): number;
  /** Credit reservations this process holds, and the calls drawn from them since it started. */
  creditReservations(): { held: number; drawnCalls: number };
  /** Model calls between their hold and their settlement in this process. */
  callsInFlight(): number;
  appServers(): { running: number; starting: number };
  appServerCrashes(): number;
  turnsRunning(): number;
  sse(): { subscribers: number; overflowDisconnects: number };
  /** True when a trivial query answers. */
  databaseUp(): Promise<boolean>;
  /** PostgreSQL pool figures, when the storage is a pool. */
  pool?(): { total: number; idle: number; waiting: number };
  /** Project event relay messages dropped because they failed verification, by reason. */
  relayRejections(): Record<string, number>;
  /** True when Redis answers a PING (only when Redis is configured). */
  redisUp?(): Promise<boolean>;
}

export function registerServiceGauges(metrics: ServiceMetrics, sources: ServiceGaugeSources): void {
  metrics.gauge('holds_open', 'Billed model calls of this node holding wallet credit (not yet settled).', () => sources.holdsOpen());
  metrics.gauge('ledger_queue_depth', 'Ledger writes (holds, settlements, adjustments) queued or committing in this process.', () =>
    sources.ledgerQueueDepth(),
  );
  metrics.gauge('credit_reservations', 'Wallets this process holds a credit reservation on.', () => sources.creditReservations().held);
  metrics.gauge(
    'reserved_calls_total',
    'Billed calls that took their hold from a credit reservation since the process started.',
    () => sources.creditReservations().drawnCalls,
    'counter',
  );
  metrics.gauge('model_calls_in_flight', 'Model calls between hold and settlement in this process.', () => sources.callsInFlight());
  metrics.gauge('appservers_running', 'Codex app-server processes running on this node.', () => sources.appServers().running);
  metrics.gauge(
    'appservers_starting',
    'Codex app-server processes starting (or restarting) on this node.',
    () => sources.appServers().starting,
  );
  metrics.gauge(
    'appserver_crashes_total',
    'App-server processes that exited unexpectedly since the service started.',
    () => sources.appServerCrashes(),
    'counter',
  );
  metrics.gauge('agent_turns_running', 'Agent and direct-thread turns starting or running on this node.', () => sources.turnsRunning());
  metrics.gauge('sse_subscribers', 'Live project event (SSE) subscribers on this node.', () => sources.sse().subscribers);
  metrics.gauge(
    'sse_overflow_disconnects_total',
    'Project event subscribers disconnected because they read too slowly (their queue filled up).',
    () => sources.sse().overflowDisconnects,
    'counter',
  );
  metrics.labeledCounter(
    'relay_rejected_total',
    'Project event relay messages from Redis dropped because they failed verification (unsigned, bad_signature, malformed, stale, not_in_log).',
    'reason',
    () => sources.relayRejections(),
  );
  metrics.gauge('database_up', '1 when the database answers a trivial query, else 0.', async () => ((await sources.databaseUp()) ? 1 : 0));
  if (sources.pool) {
    const pool = sources.pool;
    metrics.gauge('db_pool_connections', 'PostgreSQL pool connections open (idle and in use).', () => pool().total);
    metrics.gauge('db_pool_idle_connections', 'PostgreSQL pool connections idle.', () => pool().idle);
    metrics.gauge('db_pool_waiting_requests', 'Queries waiting for a PostgreSQL pool connection.', () => pool().waiting);
  }
  if (sources.redisUp) {
    const redisUp = sources.redisUp;
    metrics.gauge('redis_up', '1 when Redis answers a PING from this node within 1 s, else 0.', async () => ((await redisUp()) ? 1 : 0));
  }
}
