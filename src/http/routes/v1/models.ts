/** `GET /v1/models` and `GET /v1/models/{model_id}` (ids may contain slashes). */
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../kernel/errors.js';
import type { GatewayServices } from '../../../gateway/index.js';
import type { App } from '../../types.js';

export interface ModelDeps {
  models: Pick<GatewayServices, 'listModels' | 'describeModel'>;
}

export function modelRoutes(app: App, deps: ModelDeps): void {
  app.get('/models', {
    config: { auth: 'api', surface: 'gateway', allowApiKeyHeader: true },
    schema: { tags: ['Model API: models'], summary: 'List models and aliases (power-ai among them) with capabilities and prices' },
    handler: async () => {
      const data = deps.models.listModels();
      // OpenAI's list shape, with Anthropic's paging fields so either SDK can read it.
      return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
    },
  });

  app.get('/models/*', {
    config: { auth: 'api', surface: 'gateway', allowApiKeyHeader: true },
    schema: {
      tags: ['Model API: models'],
      summary: 'One model or alias descriptor',
      description: 'The model id may contain slashes (`/v1/models/vendor/model-name`).',
      params: Type.Object({ '*': Type.String({ description: 'model_id' }) }),
    },
    handler: async (request) => {
      const id = request.params['*'];
      const descriptor = deps.models.describeModel(id);
      if (!descriptor) throw notFound(`Model ${id}`);
      return descriptor;
    },
  });
}
