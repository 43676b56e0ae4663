/**
 * Regional availability (public, no bearer): `/api/v1/status/regions` and its earlier spelling `/api/status/regions`.
 * Registered under `/api`, so both spellings live in this one file.
 */
import type { PlatformServices } from '../../../platform/index.js';
import type { App } from '../../types.js';

export interface StatusRouteDeps {
  platform: Pick<PlatformServices, 'regions'>;
}

export async function statusRoutes(app: App, deps: StatusRouteDeps): Promise<void> {
  for (const url of ['/status/regions', '/v1/status/regions']) {
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
        const regions = await deps.platform.regions.statuses();
        return { regions, available: regions.filter((region) => region.available).map((region) => region.id) };
      },
    );
  }
}
