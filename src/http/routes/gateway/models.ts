/** `GET /v1/models`, `GET /v1/models/{model_id}` (ids may contain slashes) and the operator's alias switch. */
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../kernel/errors.js';
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';

export async function modelRoutes(app: App, services: Services): Promise<void> {
  app.get('/v1/models', {
    config: { auth: 'api', surface: 'gateway', allowApiKeyHeader: true },
    schema: { tags: ['Model API: models'], summary: 'List models and aliases (power-ai among them) with capabilities and prices' },
    handler: async () => {
      const data = services.gateway.listModels();
      // OpenAI's list shape, with Anthropic's paging fields so either SDK can read it.
      return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
    },
  });

  app.get('/v1/models/*', {
    config: { auth: 'api', surface: 'gateway', allowApiKeyHeader: true },
    schema: {
      tags: ['Model API: models'],
      summary: 'One model or alias descriptor',
      description: 'The model id may contain slashes (`/v1/models/vendor/model-name`).',
      params: Type.Object({ '*': Type.String({ description: 'model_id' }) }),
    },
    handler: async (request) => {
      const id = request.params['*'];
      const descriptor = services.gateway.describeModel(id);
      if (!descriptor) throw notFound(`Model ${id}`);
      return descriptor;
    },
  });

  app.put('/api/admin/aliases/:alias', {
    config: { auth: 'operator', surface: 'account' },
    schema: {
      tags: ['Admin: gateway'],
      summary: 'Point a model alias (such as power-ai) at another configured model',
      description: 'Takes effect for the next upstream call, including requests already waiting; persists across restarts. The alias id never changes.',
      params: Type.Object({ alias: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: Type.Object({ model: Type.String({ minLength: 1, description: 'A configured model id (not an alias).' }) }, { additionalProperties: false }),
    },
    handler: async (request) => {
      const result = await services.gateway.router.setAlias(request.params.alias, request.body.model);
      return { alias: result.alias, model: result.model, updated_at_ms: result.updatedAtMs };
    },
  });

  app.get('/api/admin/aliases', {
    config: { auth: 'operator', surface: 'account' },
    schema: { tags: ['Admin: gateway'], summary: 'Current destination of every model alias' },
    handler: async () => ({ aliases: Object.fromEntries(services.gateway.router.aliasEntries()) }),
  });
}
