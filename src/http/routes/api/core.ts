/** `GET /api/core/releases/current`: the app-server release that runs here. */
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';
import { directRoute, tags } from './threads.js';

export async function coreRoutes(app: App, services: Services): Promise<void> {
  const { direct } = services;

  app.get(
    '/api/core/releases/current',
    { config: directRoute, schema: { tags, summary: 'The app-server release that runs here and the reference CLI target' } },
    (request) => direct.catalog.release(request.principal!.kind === 'customer' ? request.principal!.customerId : null),
  );
}
