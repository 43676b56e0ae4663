import { Type } from '@sinclair/typebox';
import type { App } from '../types.js';
import type { Services } from '../../services.js';

/**
 * `GET /metrics` (Prometheus text format) on the main port for operator bearers. When `metrics.listen` is set the
 * series are served by a listener of their own instead (see `metrics/server.ts`) and this route does not exist.
 */
export async function metricsRoutes(app: App, services: Services): Promise<void> {
  if (services.config.metrics.listen !== undefined) return;
  app.get(
    '/metrics',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (operator)',
        security: [{ bearer: [] }],
        response: { 200: Type.String({ description: 'Prometheus text exposition format 0.0.4' }) },
      },
    },
    async (_request, reply) => {
      const text = await services.serviceMetrics.render();
      return reply.type(services.serviceMetrics.contentType).header('cache-control', 'no-store').send(text);
    },
  );
}
