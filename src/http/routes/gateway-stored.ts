/**
 * Stored objects of the model-API gateway: the stored chat completions API and the read/delete/input-items
 * routes of stored responses. Only the bearer's own objects are visible; anything else is a 404.
 */
import { Type } from '@sinclair/typebox';
import { metadataFilterFromQuery } from '../../gateway/stored/metadata.js';
import type { Services } from '../../services.js';
import type { App } from '../types.js';
import { principalOf } from './gateway/call-context.js';

const config = { auth: 'api', surface: 'gateway' } as const;
const Order = (fallback: 'asc' | 'desc') => Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: fallback });
const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 });
/** `limit`, `after`, `order` of a cursor-paged list (the service's `PageRequest`). */
const PageQuery = (order: 'asc' | 'desc') => Type.Object({ limit: Limit, after: Type.Optional(Type.String()), order: Order(order) });
const CompletionParams = Type.Object({ completion_id: Type.String({ minLength: 1, maxLength: 200 }) });
const ResponseParams = Type.Object({ response_id: Type.String({ minLength: 1, maxLength: 200 }) });
const MetadataBody = Type.Object(
  {
    metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: 'Up to 16 pairs; keys up to 64 characters, values up to 512. Replaces the stored metadata.',
    }),
  },
  { additionalProperties: false },
);
const chatTags = ['Model API: stored chat completions'];
const responseTags = ['Model API: responses'];

export async function gatewayStoredRoutes(app: App, services: Services): Promise<void> {
  const stored = services.gateway.stored;

  app.get('/v1/chat/completions', {
    config,
    schema: {
      tags: chatTags,
      summary: 'List stored chat completions of this bearer',
      description: 'Completions created with `store: true`. Filters: `model`, `metadata[key]=value` (repeatable).',
      querystring: Type.Object({ limit: Limit, after: Type.Optional(Type.String()), order: Order('asc'), model: Type.Optional(Type.String()) }),
    },
    handler: async (request) => {
      const query = request.query;
      const metadata = metadataFilterFromQuery(query as Record<string, unknown>);
      return stored.listChatCompletions(principalOf(request), { limit: query.limit, after: query.after, order: query.order, model: query.model, metadata });
    },
  });

  app.get('/v1/chat/completions/:completion_id', {
    config,
    schema: { tags: chatTags, summary: 'Get a stored chat completion', params: CompletionParams },
    handler: async (request) => stored.getChatCompletion(principalOf(request), request.params.completion_id),
  });

  for (const method of ['PATCH', 'POST'] as const) {
    app.route({
      method,
      url: '/v1/chat/completions/:completion_id',
      config,
      schema: {
        tags: chatTags,
        summary: method === 'PATCH' ? 'Update the metadata of a stored chat completion' : 'Update metadata (OpenAI form)',
        params: CompletionParams,
        body: MetadataBody,
      },
      handler: async (request) => stored.updateChatCompletion(principalOf(request), request.params.completion_id, request.body.metadata),
    });
  }

  app.delete('/v1/chat/completions/:completion_id', {
    config,
    schema: { tags: chatTags, summary: 'Delete a stored chat completion', params: CompletionParams },
    handler: async (request) => stored.deleteChatCompletion(principalOf(request), request.params.completion_id),
  });

  app.get('/v1/chat/completions/:completion_id/messages', {
    config,
    schema: {
      tags: chatTags,
      summary: 'List the request messages of a stored chat completion',
      params: CompletionParams,
      querystring: PageQuery('asc'),
    },
    handler: async (request) => stored.listChatCompletionMessages(principalOf(request), request.params.completion_id, request.query),
  });

  app.delete('/v1/responses/:response_id', {
    config,
    schema: { tags: responseTags, summary: 'Delete a stored response', params: ResponseParams },
    handler: async (request) => stored.deleteResponse(principalOf(request), request.params.response_id),
  });

  app.get('/v1/responses/:response_id/input_items', {
    config,
    schema: {
      tags: responseTags,
      summary: 'List the input items of a stored response',
      params: ResponseParams,
      querystring: PageQuery('desc'),
    },
    handler: async (request) => stored.listInputItems(principalOf(request), request.params.response_id, request.query),
  });
}
