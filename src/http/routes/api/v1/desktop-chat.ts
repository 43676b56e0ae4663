/** Desktop chat: bootstrap, the caller's conversations and their stored messages (others' ids: 404). */
import { Type } from '@sinclair/typebox';
import { collectParts, PartCollector } from '../../../../gateway/protocols/shared/collect.js';
import { encodeSseFrame } from '../../../../kernel/sse.js';
import { customerOf } from '../../accounts.js';
import { SseWriter, clientAbortSignal } from '../../gateway/call-context.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const ConversationParams = Type.Object({ conversation_id: Id });
const ListQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) });
const MessagesQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 200 }), after_id: Type.Optional(Id) });
const DesktopChatConversationCreateBody = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 200, description: 'Blank or absent: "New chat".' })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A model id or alias of the catalogue (unknown: 422); default the configured default model.' })),
    system_prompt: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false, title: 'DesktopChatConversationCreateBody' },
);
const SendBody = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: 100_000, description: 'The prompt; sent with the conversation\'s saved context.' }),
    stream: Type.Optional(Type.Boolean({ description: 'true: the reply as server-sent events (delta, done, error).' })),
  },
  { additionalProperties: false },
);
const account = { auth: 'api', surface: 'account' } as const;

export async function desktopChatRoutes(app: App, services: Services): Promise<void> {
  const { chat } = services.desktop;

  app.get(
    '/api/v1/desktop-chat/bootstrap',
    { config: account, schema: { tags: ['desktop'], summary: 'Desktop chat start: {conversations, models, default_model}', querystring: ListQuery } },
    async (request) => {
      const conversations = await chat.list(customerOf(request).customerId, request.query.limit);
      return {
        conversations: conversations.data,
        models: services.gateway.listModels().map((model) => ({ id: model.id, display_name: model.display_name, alias: model.alias, pricing: model.pricing })),
        default_model: services.config.agent.defaultModel,
      };
    },
  );

  app.get(
    '/api/v1/desktop-chat/conversations',
    { config: account, schema: { tags: ['desktop'], summary: 'Your conversations, most recently updated first: {data:[{id, title, model, system_prompt, created_at, updated_at}]}', querystring: ListQuery } },
    async (request) => chat.list(customerOf(request).customerId, request.query.limit),
  );

  app.post(
    '/api/v1/desktop-chat/conversations',
    { config: account, schema: { tags: ['desktop'], summary: 'Creates a conversation → 201 {id, title, model, system_prompt, created_at, updated_at}', body: DesktopChatConversationCreateBody } },
    async (request, reply) => {
      const body = request.body;
      return reply.code(201).send(await chat.create(customerOf(request).customerId, { title: body.title, model: body.model, systemPrompt: body.system_prompt }));
    },
  );

  app.delete(
    '/api/v1/desktop-chat/conversations/:conversation_id',
    { config: account, schema: { tags: ['desktop'], summary: 'Deletes your conversation and its messages → 204 (not yours: 404)', params: ConversationParams } },
    async (request, reply) => {
      await chat.delete(customerOf(request).customerId, request.params.conversation_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/v1/desktop-chat/conversations/:conversation_id/messages',
    { config: account, schema: { tags: ['desktop'], summary: 'Messages of your conversation, oldest first: {conversation, data:[{id, role, content, model, input_tokens, output_tokens, created_at}]}', params: ConversationParams, querystring: MessagesQuery } },
    async (request) => chat.messages(customerOf(request).customerId, request.params.conversation_id, { limit: request.query.limit, afterId: request.query.after_id }),
  );

  app.post(
    '/api/v1/desktop-chat/conversations/:conversation_id/messages',
    {
      config: account,
      schema: {
        tags: ['desktop'],
        summary: 'Sends a prompt with the saved context through the gateway (billed; 402 when short) → 201 {messages:[prompt, reply]}; stream: true → SSE delta/done/error',
        params: ConversationParams,
        body: SendBody,
      },
    },
    async (request, reply) => {
      const caller = customerOf(request);
      const stream = request.body.stream === true;
      const sent = await chat.send(caller.customerId, request.params.conversation_id, request.body.content, {
        principal: caller,
        requestId: request.id,
        signal: clientAbortSignal(reply),
        host: request.headers.host,
        stream,
      });
      if (!stream) {
        const collected = await collectParts(sent.parts);
        if (collected.error) throw collected.error.toAppError();
        return reply.code(201).send({ messages: await sent.complete(collected) });
      }
      const sse = new SseWriter(reply, request.id);
      const collector = new PartCollector();
      try {
        for await (const part of sent.parts) {
          collector.add(part);
          if (part.type === 'text-delta') await sse.write(encodeSseFrame({ event: 'delta', data: { text: part.delta } }));
        }
        const collected = collector.result;
        if (collected.error) {
          const error = collected.error.toAppError();
          await sse.write(encodeSseFrame({ event: 'error', data: { code: error.code, message: error.status >= 500 ? 'The model call failed' : error.message } }));
        } else if (collected.finish !== undefined) {
          await sse.write(encodeSseFrame({ event: 'done', data: { messages: await sent.complete(collected) } }));
        }
      } finally {
        sse.end();
      }
      return reply;
    },
  );
}
