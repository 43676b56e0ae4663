/**
 * Liveness and readiness. Liveness (`/healthz`, `/health/live`) answers 200 while the process serves HTTP at all:
 * a failing liveness check means restart the process. Readiness (`/health/ready`) answers 200 only when this
 * node should receive traffic: the database answers, every migration this build knows is applied, and the node
 * is not draining; otherwise 503 with Retry-After, which means send traffic elsewhere (never restart for it).
 * `/readyz` is the earlier, shorter readiness check (database and drain only).
 */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../kernel/errors.js';
import type { DatabaseReadiness } from '../../storage/readiness.js';
import type { App } from '../types.js';

/** Seconds a draining node tells a prober to wait: long enough for the node to be gone by then. */
const DRAINING_RETRY_AFTER_SECONDS = 30;

export interface HealthRouteDeps {
  database: DatabaseReadiness;
}

export async function healthRoutes(app: App, deps: HealthRouteDeps): Promise<void> {
  const notDraining = () => {
    if (app.drain.draining) {
      throw new AppError('NOT_READY', 'This node is draining for a restart; use another node', {
        retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS,
      });
    }
  };
  const databaseAnswers = async () => {
    try {
      await deps.database.ping();
    } catch (error) {
      throw new AppError('NOT_READY', 'Database not reachable', { cause: error, retryAfterSeconds: 5 });
    }
  };
  const live = {
    config: { auth: 'public' as const },
    schema: {
      tags: ['health'],
      summary: 'Liveness: the process serves HTTP',
      response: { 200: Type.Object({ status: Type.Literal('ok') }) },
    },
  };
  app.get('/healthz', live, async () => ({ status: 'ok' as const }));
  app.get('/health/live', live, async () => ({ status: 'ok' as const }));
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers and the node is not draining',
        response: { 200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }) },
      },
    },
    async () => {
      notDraining();
      await databaseAnswers();
      return { status: 'ready' as const, database: deps.database.dialect };
    },
  );
  app.get(
    '/health/ready',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: database reachable, migrations applied, not draining (503 with Retry-After otherwise)',
        response: { 200: Type.Object({ status: Type.Literal('ready'), database: Type.String(), migrations: Type.Literal('current') }) },
      },
    },
    async () => {
      notDraining();
      await databaseAnswers();
      let pending: string[];
      try {
        pending = await deps.database.pendingMigrations();
      } catch (error) {
        throw new AppError('NOT_READY', 'Migration state not readable', { cause: error, retryAfterSeconds: 5 });
      }
      if (pending.length > 0) {
        throw new AppError('NOT_READY', `Database migrations not applied: ${pending.join(', ')}`, { retryAfterSeconds: 5 });
      }
      return { status: 'ready' as const, database: deps.database.dialect, migrations: 'current' as const };
    },
  );
}
