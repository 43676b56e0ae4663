/**
 * `/v1/chat/completions*`: create (OpenAI chat completions, streamed or not, onto any destination) and the stored
 * chat completions API (list, get, update metadata, delete, request messages). Only the bearer's own stored
 * objects are visible; anything else is a 404.
 */
import { Type } from '@sinclair/typebox';
import type { DecodedChat } from '../../../gateway/protocols/chat/decode.js';
import type { InboundProtocol } from '../../../gateway/protocols/contract.js';
import type { DriverDeps } from '../../../gateway/protocols/driver.js';
import { metadataFilterFromQuery } from '../../../gateway/stored/metadata.js';
import type { StoredObjectsService } from '../../../gateway/stored/index.js';
import { principalOf } from '../../call-context.js';
import type { App } from '../../types.js';
import { modelCallRoute } from '../shared/model-call.js';
import { Limit, Order, PageQuery, gatewayRoute as config } from './schemas.js';

export interface ChatCompletionDeps {
  driver: DriverDeps;
  protocol: InboundProtocol<DecodedChat>;
  stored: Pick<
    StoredObjectsService,
    'listChatCompletions' | 'getChatCompletion' | 'updateChatCompletion' | 'deleteChatCompletion' | 'listChatCompletionMessages'
  >;
}

const chatTags = ['Model API: stored chat completions'];
const CompletionParams = Type.Object({ completion_id: Type.String({ minLength: 1, maxLength: 200 }) });
const MetadataBody = Type.Object(
  {
    metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: 'Up to 16 pairs; keys up to 64 characters, values up to 512. Replaces the stored metadata.',
    }),
  },
  { additionalProperties: false },
);

const ChatBody = Type.Object(
  {
    model: Type.String({ description: 'A model id or alias such as `power-ai` (see GET /v1/models).' }),
    messages: Type.Array(Type.Object({ role: Type.String() }, { additionalProperties: true }), {
      description: 'system/developer, user (text and image_url parts), assistant (with tool_calls), tool (with tool_call_id).',
    }),
    stream: Type.Optional(Type.Boolean()),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    tool_choice: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

export function chatCompletionRoutes(app: App, deps: ChatCompletionDeps): void {
  modelCallRoute(app, deps.driver, {
    url: '/chat/completions',
    config,
    schema: {
      tags: ['Model API: chat completions'],
      summary: 'Create a chat completion',
      description: 'OpenAI-compatible. `stream: true` returns server-sent `chat.completion.chunk` events ending with `[DONE]`.',
      body: ChatBody,
    },
    protocol: deps.protocol,
  });

  app.get('/chat/completions', {
    config,
    schema: {
      tags: chatTags,
      summary: 'List stored chat completions of this bearer',
      description: 'Completions created with `store: true`. Filters: `model`, `metadata[key]=value` (repeatable).',
      querystring: Type.Object({
        limit: Limit,
        after: Type.Optional(Type.String()),
        order: Order('asc'),
        model: Type.Optional(Type.String()),
      }),
    },
    handler: async (request) => {
      const query = request.query;
      const metadata = metadataFilterFromQuery(query as Record<string, unknown>);
      return deps.stored.listChatCompletions(principalOf(request), {
        limit: query.limit,
        after: query.after,
        order: query.order,
        model: query.model,
        metadata,
      });
    },
  });

  app.get('/chat/completions/:completion_id', {
    config,
    schema: { tags: chatTags, summary: 'Get a stored chat completion', params: CompletionParams },
    handler: async (request) => deps.stored.getChatCompletion(principalOf(request), request.params.completion_id),
  });

  for (const method of ['PATCH', 'POST'] as const) {
    app.route({
      method,
      url: '/chat/completions/:completion_id',
      config,
      schema: {
        tags: chatTags,
        summary: method === 'PATCH' ? 'Update the metadata of a stored chat completion' : 'Update metadata (OpenAI form)',
        params: CompletionParams,
        body: MetadataBody,
      },
      handler: async (request) =>
        deps.stored.updateChatCompletion(principalOf(request), request.params.completion_id, request.body.metadata),
    });
  }

  app.delete('/chat/completions/:completion_id', {
    config,
    schema: { tags: chatTags, summary: 'Delete a stored chat completion', params: CompletionParams },
    handler: async (request) => deps.stored.deleteChatCompletion(principalOf(request), request.params.completion_id),
  });

  app.get('/chat/completions/:completion_id/messages', {
    config,
    schema: {
      tags: chatTags,
      summary: 'List the request messages of a stored chat completion',
      params: CompletionParams,
      querystring: PageQuery('asc'),
    },
    handler: async (request) => deps.stored.listChatCompletionMessages(principalOf(request), request.params.completion_id, request.query),
  });
}
