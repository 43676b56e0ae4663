/** `POST /v1/embeddings`: OpenAI-shaped embeddings from a model declared with `capabilities.embeddings`. */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';
import { bodyOf, clientAbortSignal, principalOf } from './call-context.js';

const EmbeddingsBody = Type.Object(
  {
    model: Type.String({ description: 'An embedding model id (its capabilities list `embeddings` in GET /v1/models).' }),
    // A string, a list of strings, or token arrays; checked by the gateway (a union here would meet type coercion).
    input: Type.Unknown({ description: 'A string, a list of strings, or token arrays.' }),
    encoding_format: Type.Optional(Type.String({ description: '`float` (default) or `base64`.' })),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export async function embeddingsRoutes(app: App, services: Services): Promise<void> {
  app.post('/v1/embeddings', {
    config: { auth: 'api', surface: 'gateway' },
    schema: {
      tags: ['Model API: embeddings'],
      summary: 'Create embeddings',
      description: 'OpenAI-compatible. Billed by input tokens on the model\'s rate card; key policies apply as for any model call.',
      body: EmbeddingsBody,
    },
    handler: async (request, reply) =>
      services.gateway.embed({ principal: principalOf(request), body: bodyOf(request), requestId: request.id, signal: clientAbortSignal(reply), host: request.headers.host }),
  });
}
