/**
 * Regional availability (public, no bearer): `/api/v1/status/regions` and its earlier spelling `/api/status/regions`.
 */
import { createPlatformServices } from '../../../../platform/index.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';

export async function statusRoutes(app: App, services: Services): Promise<void> {
  const platform = createPlatformServices(services.config, services.clock);

  for (const url of ['/api/status/regions', '/api/v1/status/regions']) {
    app.get(
      url,
      {
        config: { auth: 'public' },
        schema: {
          tags: ['public'],
          summary: 'Regional availability (measured from each region health URL, cached briefly)',
        },
      },
      async () => {
        const regions = await platform.regions.statuses();
        return { regions, available: regions.filter((region) => region.available).map((region) => region.id) };
      },
    );
  }
}
