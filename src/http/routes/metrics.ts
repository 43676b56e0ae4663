import { Type } from '@sinclair/typebox';
import type { ServiceMetrics } from '../../metrics/index.js';
import type { App } from '../types.js';

export interface MetricsRouteDeps {
  serviceMetrics: Pick<ServiceMetrics, 'render' | 'contentType'>;
}

/**
 * `GET /metrics` (Prometheus text format) on the main port for operator bearers. When `metrics.listen` is set the
 * series are served by a listener of their own instead (see `metrics/server.ts`) and this module is not registered.
 */
export async function metricsRoutes(app: App, deps: MetricsRouteDeps): Promise<void> {
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
      const text = await deps.serviceMetrics.render();
      return reply.type(deps.serviceMetrics.contentType).header('cache-control', 'no-store').send(text);
    },
  );
}
