/** `POST /v1/chat/completions`: OpenAI chat completions, streamed or not, onto any destination. */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeChatRequest, type DecodedChat } from '../../../gateway/protocols/openai-chat/decode.js';
import { ChatStreamEncoder, chatCompletionObject } from '../../../gateway/protocols/openai-chat/encode.js';
import { PartCollector, collectParts } from '../../../gateway/protocols/shared/collect.js';
import type { GatewayCall } from '../../../gateway/execute.js';
import { newId } from '../../../kernel/ids.js';
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';
import { SseWriter, bodyOf, clientAbortSignal, principalOf } from './call-context.js';

const ChatBody = Type.Object(
  {
    model: Type.String({ description: 'A model id or alias such as `power-ai` (see GET /v1/models).' }),
    messages: Type.Array(Type.Object({ role: Type.String() }, { additionalProperties: true }), { description: 'system/developer, user (text and image_url parts), assistant (with tool_calls), tool (with tool_call_id).' }),
    stream: Type.Optional(Type.Boolean()),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    tool_choice: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

export async function chatRoutes(app: App, services: Services): Promise<void> {
  app.post('/v1/chat/completions', {
    config: { auth: 'api', surface: 'gateway' },
    schema: {
      tags: ['Model API: chat completions'],
      summary: 'Create a chat completion',
      description: 'OpenAI-compatible. `stream: true` returns server-sent `chat.completion.chunk` events ending with `[DONE]`.',
      body: ChatBody,
    },
    handler: async (request, reply) => {
      const body = bodyOf(request);
      const decoded = decodeChatRequest(body);
      const signal = clientAbortSignal(reply);
      const call = await services.gateway.execute({ principal: principalOf(request), request: decoded.request, operation: 'chat', requestId: request.id, signal, host: request.headers.host });
      if (decoded.request.stream) return streamChat({ request, reply, services, call, decoded, body });
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      const completion = chatCompletionObject({ id: newId('chatcmpl', 24), createdSeconds: Math.floor(Date.now() / 1000), model: decoded.request.model, collected });
      await saveCompletion(services, request, decoded, body, completion);
      return completion;
    },
  });
}

async function streamChat(options: { request: FastifyRequest; reply: FastifyReply; services: Services; call: GatewayCall; decoded: DecodedChat; body: Record<string, unknown> }): Promise<FastifyReply> {
  const { request, reply, call, decoded } = options;
  const sse = new SseWriter(reply, request.id);
  const encoder = new ChatStreamEncoder(decoded.request.model, decoded.includeUsage);
  // The whole completion is folded only when it is to be stored; otherwise parts are just relayed.
  const collector = decoded.store ? new PartCollector() : undefined;
  let finished = false;
  let failed = false;
  try {
    for await (const part of call.parts) {
      collector?.add(part);
      if (part.type === 'finish') finished = true;
      else if (part.type === 'error') failed = true;
      await sse.write(encoder.encode(part));
    }
    if (finished && !failed) await sse.write(encoder.end());
  } finally {
    sse.end();
  }
  if (collector && finished && !failed) {
    const completion = chatCompletionObject({ id: encoder.id, createdSeconds: encoder.created, model: decoded.request.model, collected: collector.result });
    await saveCompletion(options.services, request, decoded, options.body, completion);
  }
  return reply;
}

async function saveCompletion(services: Services, request: FastifyRequest, decoded: DecodedChat, body: Record<string, unknown>, completion: Record<string, unknown>): Promise<void> {
  try {
    await services.gateway.stored.saveChatCompletion({
      principal: principalOf(request),
      requestId: request.id,
      store: decoded.store,
      metadata: decoded.request.metadata,
      requestMessages: body.messages as unknown[],
      completion,
    });
  } catch (error) {
    request.log.error({ err: error, requestId: request.id }, 'storing a chat completion failed');
  }
}
