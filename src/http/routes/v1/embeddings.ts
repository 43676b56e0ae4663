/** `POST /v1/embeddings`: OpenAI-shaped embeddings from a model declared with `capabilities.embeddings`. */
import { Type } from '@sinclair/typebox';
import type { GatewayServices } from '../../../gateway/index.js';
import { bodyOf, clientAbortSignal, principalOf } from '../../call-context.js';
import type { App } from '../../types.js';
import { gatewayRoute } from './schemas.js';

export interface EmbeddingDeps {
  embed: GatewayServices['embed'];
}

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

export function embeddingRoutes(app: App, deps: EmbeddingDeps): void {
  app.post('/embeddings', {
    config: gatewayRoute,
    schema: {
      tags: ['Model API: embeddings'],
      summary: 'Create embeddings',
      description: "OpenAI-compatible. Billed by input tokens on the model's rate card; key policies apply as for any model call.",
      body: EmbeddingsBody,
    },
    handler: async (request, reply) =>
      deps.embed({
        principal: principalOf(request),
        body: bodyOf(request),
        requestId: request.id,
        clientRequestId: request.clientRequestId ?? undefined,
        signal: clientAbortSignal(reply),
        host: request.headers.host,
      }),
  });
}
