/** `GET /api/models`: the models threads can use (the app-server catalog merged with the gateway models and aliases). */
import { Type } from '@sinclair/typebox';
import { CATALOGUE_CUSTOMER_ID } from '../../../agent/index.js';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { CustomerQuery, directRoute, tags } from './threads.js';

export interface ModelRouteDeps {
  direct: Pick<DirectServices, 'catalog'>;
}

export async function modelRoutes(app: App, deps: ModelRouteDeps): Promise<void> {
  const { direct } = deps;

  app.get(
    '/models',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Models threads can use (the app-server catalog merged with the gateway models and aliases)',
        querystring: Type.Object({ include_hidden: Type.Boolean({ default: false }), ...CustomerQuery }),
      },
    },
    (request) => {
      const principal = request.principal!;
      const customerId = principal.kind === 'customer' ? principal.customerId : (request.query.customer_id ?? CATALOGUE_CUSTOMER_ID);
      return direct.catalog.models(customerId, request.query.include_hidden);
    },
  );
}
