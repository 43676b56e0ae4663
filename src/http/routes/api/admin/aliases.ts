/** The operator's model-alias switch: `PUT /api/admin/aliases/{alias}` and `GET /api/admin/aliases`. */
import { Type } from '@sinclair/typebox';
import type { ModelRouter } from '../../../../gateway/routing/router.js';
import type { App } from '../../../types.js';

export interface AliasDeps {
  router: Pick<ModelRouter, 'setAlias' | 'aliasEntries'>;
}

export async function aliasRoutes(app: App, services: { gateway: AliasDeps }): Promise<void> {
  const { router } = services.gateway;
  app.put('/aliases/:alias', {
    config: { auth: 'operator', surface: 'account' },
    schema: {
      tags: ['Admin: gateway'],
      summary: 'Point a model alias (such as power-ai) at another configured model',
      description:
        'Takes effect for the next upstream call, including requests already waiting; persists across restarts. The alias id never changes.',
      params: Type.Object({ alias: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: Type.Object(
        { model: Type.String({ minLength: 1, description: 'A configured model id (not an alias).' }) },
        { additionalProperties: false },
      ),
    },
    handler: async (request) => {
      const result = await router.setAlias(request.params.alias, request.body.model);
      return { alias: result.alias, model: result.model, updated_at_ms: result.updatedAtMs };
    },
  });

  app.get('/aliases', {
    config: { auth: 'operator', surface: 'account' },
    schema: { tags: ['Admin: gateway'], summary: 'Current destination of every model alias' },
    handler: async () => ({ aliases: Object.fromEntries(router.aliasEntries()) }),
  });
}
