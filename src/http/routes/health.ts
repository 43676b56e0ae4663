import { Type } from '@sinclair/typebox';
import { AppError } from '../../kernel/errors.js';
import type { App } from '../app.js';
import type { Services } from '../../services.js';

export async function healthRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: { tags: ['health'], summary: 'Liveness', response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers',
        response: { 200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }) },
      },
    },
    async () => {
      try {
        await services.storage.db.selectFrom('customers').select('id').limit(1).execute();
      } catch (error) {
        throw new AppError('NOT_READY', 'Database not reachable', { cause: error, retryAfterSeconds: 5 });
      }
      return { status: 'ready' as const, database: services.storage.dialect };
    },
  );
}
