/**
 * Anthropic-style Messages: `POST /v1/messages` (any destination) and `POST /v1/messages/count_tokens` (forwarded
 * to an Anthropic-kind destination, counted here otherwise); no other subpath is served or forwarded. Accepts
 * `x-api-key` like Anthropic.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolveModel, type GatewayCall } from '../../../gateway/execute.js';
import { decodeMessagesRequest } from '../../../gateway/protocols/anthropic-messages/decode.js';
import { MessagesStreamEncoder, messageObject } from '../../../gateway/protocols/anthropic-messages/encode.js';
import { NativeMessagesRelay } from '../../../gateway/protocols/anthropic-messages/native.js';
import { PartCollector, collectParts } from '../../../gateway/protocols/shared/collect.js';
import type { Destination, StreamPart } from '../../../gateway/normalized/index.js';
import { UpstreamError, upstreamError } from '../../../gateway/normalized/index.js';
import { countInputTokens, roughInputTokens } from '../../../gateway/tokens.js';
import { modelAllowed } from '../../../billing/policy.js';
import { AppError, notFound } from '../../../kernel/errors.js';
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';
import { SseWriter, bodyOf, clientAbortSignal, principalOf } from './call-context.js';
import type { CallSignal } from '../../../gateway/normalized/index.js';

const DEFAULT_VERSION = '2023-06-01';
const config = { auth: 'api', surface: 'gateway', allowApiKeyHeader: true, errorFormat: 'anthropic' } as const;
const tags = ['Model API: messages'];
const VersionHeaders = Type.Object(
  {
    'messages-api-version': Type.Optional(Type.String({ default: DEFAULT_VERSION, description: 'Messages API version (default 2023-06-01).' })),
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

/** The version the caller speaks; only the 2023-06-01 wire exists, so other dates are refused clearly. */
function checkVersion(request: FastifyRequest): void {
  const headers = request.headers;
  const version = (headers['messages-api-version'] ?? headers['anthropic-version'] ?? DEFAULT_VERSION) as string;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) {
    throw new AppError('BAD_REQUEST', `Unsupported messages API version ${version}; use ${DEFAULT_VERSION}`, { details: {} });
  }
}

export async function messagesRoutes(app: App, services: Services): Promise<void> {
  app.post('/v1/messages', {
    config,
    schema: {
      tags,
      summary: 'Create a message (Anthropic-style)',
      description: 'Image blocks and tools supported. `stream: true` returns message_start, content_block_start/delta/stop, message_delta, message_stop.',
      headers: VersionHeaders,
      body: MessagesBody,
    },
    handler: async (request, reply) => {
      checkVersion(request);
      const normalized = decodeMessagesRequest(bodyOf(request), { requireMaxTokens: true, headers: request.headers });
      const signal = clientAbortSignal(reply);
      const call = await services.gateway.execute({ principal: principalOf(request), request: normalized, operation: 'messages', requestId: request.id, signal, host: request.headers.host });
      const estimate = roughInputTokens(call.inputSize);
      if (call.native) return relayNative(request, reply, call, new NativeMessagesRelay(normalized.model), normalized.stream);
      if (normalized.stream) return streamMessages(request, reply, call, new MessagesStreamEncoder(normalized.model, estimate));
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      return messageObject({ model: normalized.model, collected, estimatedInputTokens: estimate });
    },
  });

  app.post('/v1/messages/count_tokens', {
    config,
    schema: { tags, summary: 'Count the input tokens of a Messages request', headers: VersionHeaders, body: MessagesBody },
    handler: async (request, reply) => {
      checkVersion(request);
      const body = bodyOf(request);
      const normalized = decodeMessagesRequest(body, { requireMaxTokens: false });
      const destination = resolveModel(services.gateway.router, normalized.model);
      const principal = principalOf(request);
      if (principal.kind === 'customer' && !modelAllowed(principal.policy, normalized.model, destination.model.id)) {
        throw new AppError('MODEL_NOT_ALLOWED', `This API key may not use model ${normalized.model}`);
      }
      if (destination.provider.kind === 'anthropic') {
        return forward(services, reply, destination, { path: '/v1/messages/count_tokens', body: { ...body, model: destination.model.upstreamModel }, signal: clientAbortSignal(reply) });
      }
      return { input_tokens: await countInputTokens(normalized) };
    },
  });

  // Only `count_tokens` (above) is served under /v1/messages/. Anything else (message batches among them, whose
  // results are not billed per result here) answers 404 in Anthropic's shape and never reaches an upstream.
  app.post('/v1/messages/*', {
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

async function forward(services: Services, reply: FastifyReply, destination: Destination, options: { path: string; body: unknown; signal: CallSignal }): Promise<FastifyReply> {
  const adapter = services.gateway.router.adapterFor(destination);
  try {
    const forwarded = await adapter.forward!({ ...options, headers: {} });
    if (forwarded.status >= 500 || forwarded.status === 429) {
      throw upstreamError({ kind: 'status', upstreamStatus: forwarded.status, retryAfterHeader: forwarded.headers['retry-after'] });
    }
    return reply.code(forwarded.status).type(forwarded.headers['content-type'] ?? 'application/json').send(forwarded.body);
  } catch (error) {
    throw error instanceof UpstreamError ? error.toAppError() : error;
  }
}

/** An Anthropic-kind destination's own reply, streamed or whole, relabelled with the caller's model id. */
async function relayNative(request: FastifyRequest, reply: FastifyReply, call: GatewayCall, relay: NativeMessagesRelay, stream: boolean): Promise<unknown> {
  if (stream) return streamMessages(request, reply, call, relay);
  const events: Record<string, unknown>[] = [];
  const collector = new PartCollector();
  for await (const part of call.parts) {
    collector.add(part);
    if (part.type === 'native-event') events.push(part.event);
  }
  if (collector.result.error) throw collector.result.error.toAppError();
  const message = relay.message(events, collector.result);
  if (!message) throw upstreamError({ kind: 'protocol' }).toAppError();
  return message;
}

async function streamMessages(request: FastifyRequest, reply: FastifyReply, call: GatewayCall, encoder: { encode(part: StreamPart): string }): Promise<FastifyReply> {
  const sse = new SseWriter(reply, request.id);
  try {
    for await (const part of call.parts) await sse.write(encoder.encode(part));
  } finally {
    sse.end();
  }
  return reply;
}
