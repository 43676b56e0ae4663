/**
 * `/v1/messages*`, Anthropic-style Messages: `POST /v1/messages` (any destination) and
 * `POST /v1/messages/count_tokens` (the provider's own counter when it has one, ours otherwise); no other subpath is
 * served or forwarded. Accepts `x-api-key` like Anthropic. Registered under the `/v1/messages` prefix, whose error
 * handler answers in Anthropic's shape.
 */
import { Type } from '@sinclair/typebox';
import { DEFAULT_MESSAGES_VERSION } from '../../../gateway/protocols/messages/decode.js';
import { notFound } from '../../../kernel/errors.js';
import type { GatewayServices } from '../../../gateway/index.js';
import type { Decoded, InboundProtocol } from '../../../gateway/protocols/contract.js';
import type { DriverDeps } from '../../../gateway/protocols/driver.js';
import { bodyOf, clientAbortSignal, principalOf } from '../../call-context.js';
import type { App } from '../../types.js';
import { modelCallRoute } from '../shared/model-call.js';

export interface MessageDeps {
  driver: DriverDeps;
  protocol: InboundProtocol<Decoded>;
  countTokens: GatewayServices['countMessageTokens'];
}

const config = { auth: 'api', surface: 'gateway', allowApiKeyHeader: true } as const;
const tags = ['Model API: messages'];
const VersionHeaders = Type.Object(
  {
    'messages-api-version': Type.Optional(
      Type.String({ default: DEFAULT_MESSAGES_VERSION, description: 'Messages API version (default 2023-06-01).' }),
    ),
    'anthropic-version': Type.Optional(Type.String({ description: 'Accepted as sent by Anthropic clients.' })),
  },
  { additionalProperties: true },
);
const MessagesBody = Type.Object(
  {
    model: Type.String(),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    messages: Type.Array(Type.Object({ role: Type.String() }, { additionalProperties: true })),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/** Registers on the `/v1/messages` prefix. */
export function messageRoutes(app: App, deps: MessageDeps): void {
  modelCallRoute(app, deps.driver, {
    url: '',
    config,
    schema: {
      tags,
      summary: 'Create a message (Anthropic-style)',
      description:
        'Image blocks and tools supported. `stream: true` returns message_start, content_block_start/delta/stop, message_delta, message_stop.',
      headers: VersionHeaders,
      body: MessagesBody,
    },
    protocol: deps.protocol,
  });

  app.post('/count_tokens', {
    config,
    schema: { tags, summary: 'Count the input tokens of a Messages request', headers: VersionHeaders, body: MessagesBody },
    handler: async (request, reply) => {
      const count = await deps.countTokens({
        principal: principalOf(request),
        body: bodyOf(request),
        headers: request.headers,
        signal: clientAbortSignal(reply),
      });
      if (count.kind === 'counted') return count.body;
      const relayed = count.reply;
      return reply
        .code(relayed.status)
        .type(relayed.headers['content-type'] ?? 'application/json')
        .send(relayed.body);
    },
  });

  // Only `count_tokens` (above) is served under /v1/messages/. Anything else (message batches among them, whose
  // results are not billed per result here) answers 404 in Anthropic's shape and never reaches an upstream.
  app.post('/*', {
    config,
    schema: {
      tags,
      summary: 'Other messages subpaths (not served)',
      description: 'Every subpath other than count_tokens answers 404 in the Anthropic error shape; nothing is forwarded.',
      params: Type.Object({ '*': Type.String() }),
      body: Type.Optional(Type.Object({}, { additionalProperties: true })),
    },
    handler: async () => {
      throw notFound('This messages route');
    },
  });
}
