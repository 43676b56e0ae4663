/** `GET /api/core/releases/current`: the app-server release that runs here. */
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { directRoute, tags } from './threads.js';

export interface CoreRouteDeps {
  direct: Pick<DirectServices, 'catalog'>;
}

export async function coreRoutes(app: App, deps: CoreRouteDeps): Promise<void> {
  const { direct } = deps;

  app.get(
    '/core/releases/current',
    { config: directRoute, schema: { tags, summary: 'The app-server release that runs here and the reference CLI target' } },
    (request) => direct.catalog.release(request.principal!.kind === 'customer' ? request.principal!.customerId : null),
  );
}
