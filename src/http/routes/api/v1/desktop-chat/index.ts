/** Desktop chat: bootstrap, the caller's conversations, their messages (free daily quota, research) and research PDFs (others' ids: 404). */
import { Type, type Static } from '@sinclair/typebox';
import { researchPdf } from '../../../../../desktop/research-pdf.js';
import { notFound, validationError } from '../../../../../kernel/errors.js';
import { customerOf } from '../../../../caller.js';
import { modelCallRoute } from '../../../shared/model-call.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { DesktopServices } from '../../../../../desktop/index.js';
import type { GatewayServices } from '../../../../../gateway/index.js';
import type { App } from '../../../../types.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const ConversationParams = Type.Object({ conversation_id: Id });
/** The spec's message id is a string path segment: anything but a known id is 404 (not a validation error). */
const MessageParams = Type.Object({ message_id: Type.String({ minLength: 1, maxLength: 64 }) });
const MESSAGE_ID = /^[1-9][0-9]{0,15}$/;
const ListQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) });
const MessagesQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 200 }), after_id: Type.Optional(Id) });
const DesktopChatConversationCreateBody = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 200, description: 'Blank or absent: "New chat".' })),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'A model id or alias of the model catalog (unknown: 422); default the configured default model.',
      }),
    ),
    system_prompt: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false, title: 'DesktopChatConversationCreateBody' },
);
const SendBody = Type.Object(
  {
    content: Type.String({ minLength: 1, maxLength: 100_000, description: "The prompt; sent with the conversation's saved context." }),
    stream: Type.Optional(
      Type.Boolean({ description: 'true: the reply as server-sent events (delta, done, error). Not with mode research.' }),
    ),
    mode: Type.Optional(
      Type.Union([Type.Literal('chat'), Type.Literal('research')], {
        description:
          'research: a multi-step analysis (plan, then up to 6 sections, each a billed model call) run in the background; answers 202 with the prompt and the pending reply.',
      }),
    ),
  },
  { additionalProperties: false, title: 'DesktopChatMessageBody' },
);
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface DesktopChatRouteDeps {
  desktop: Pick<DesktopServices, 'chat' | 'chatQuota' | 'chatProtocol'>;
  gateway: Pick<GatewayServices, 'listModels' | 'driver'>;
  config: AppConfig;
}

export async function desktopChatRoutes(app: App, deps: DesktopChatRouteDeps): Promise<void> {
  bootstrapRoute(app, deps);
  conversationRoutes(app, deps);
  messageRoutes(app, deps);
  researchPdfRoute(app, deps);
}

function bootstrapRoute(app: App, deps: DesktopChatRouteDeps): void {
  const { chat } = deps.desktop;
  app.get(
    '/bootstrap',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Desktop chat start: {conversations, models, default_model, free_quota:{daily_messages, used, left, resets_at, models}}',
        querystring: ListQuery,
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      const conversations = await chat.list(customerId, request.query.limit);
      return {
        conversations: conversations.data,
        models: deps.gateway.listModels().map((model) => ({
          id: model.id,
          display_name: model.display_name,
          alias: model.alias,
          pricing: model.pricing,
          free: deps.desktop.chatQuota.coversModel(model.id),
        })),
        default_model: deps.config.agent.defaultModel,
        free_quota: await deps.desktop.chatQuota.status(customerId),
      };
    },
  );
}

function conversationRoutes(app: App, deps: DesktopChatRouteDeps): void {
  const { chat } = deps.desktop;
  app.get(
    '/conversations',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Your conversations, most recently updated first: {data:[{id, title, model, system_prompt, created_at, updated_at}]}',
        querystring: ListQuery,
      },
    },
    async (request) => chat.list(customerOf(request).customerId, request.query.limit),
  );

  app.post(
    '/conversations',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Creates a conversation → 201 {id, title, model, system_prompt, created_at, updated_at}',
        body: DesktopChatConversationCreateBody,
      },
    },
    async (request, reply) => {
      const body = request.body;
      return reply
        .code(201)
        .send(
          await chat.create(customerOf(request).customerId, { title: body.title, model: body.model, systemPrompt: body.system_prompt }),
        );
    },
  );

  app.delete(
    '/conversations/:conversation_id',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Deletes your conversation and its messages → 204 (not yours: 404)',
        params: ConversationParams,
      },
    },
    async (request, reply) => {
      await chat.delete(customerOf(request).customerId, request.params.conversation_id);
      return reply.code(204).send();
    },
  );
}

function messageRoutes(app: App, deps: DesktopChatRouteDeps): void {
  const { chat } = deps.desktop;
  app.get(
    '/conversations/:conversation_id/messages',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Messages of your conversation, oldest first: {conversation, data:[{id, role, content, model, input_tokens, output_tokens, created_at, research}]}; research is null except on the reply of a research message: {status (pending | running | completed | failed), title, sections, sources, calls, error, created_at, completed_at}',
        params: ConversationParams,
        querystring: MessagesQuery,
      },
    },
    async (request) =>
      chat.messages(customerOf(request).customerId, request.params.conversation_id, {
        limit: request.query.limit,
        afterId: request.query.after_id,
      }),
  );

  // A chat-mode message is a model call like the /v1 ones, driven by the gateway's driver; research mode answers first.
  modelCallRoute(app, deps.gateway.driver, {
    url: '/conversations/:conversation_id/messages',
    config: customerAccount,
    schema: {
      tags: ['desktop'],
      summary:
        'Sends a prompt with the saved context through the gateway: the free daily quota first (free models), then the wallet; 402 when both are out → 201 {messages:[prompt, reply], free, free_quota}; stream: true → SSE delta/done/error; mode research → 202 {messages:[prompt, reply with research.status pending]}',
      params: ConversationParams,
      body: SendBody,
    },
    protocol: deps.desktop.chatProtocol,
    status: 201,
    before: async (request, reply) => {
      const body = request.body as Static<typeof SendBody>;
      if (body.mode !== 'research') return undefined;
      if (body.stream === true)
        throw validationError([
          { loc: ['body', 'stream'], msg: 'a research message is not streamed; poll its messages', type: 'value_error' },
        ]);
      const caller = customerOf(request);
      const { conversation_id: conversationId } = request.params as Static<typeof ConversationParams>;
      const started = await deps.desktop.chat.research(caller.customerId, conversationId, body.content, {
        principal: caller,
        requestId: request.id,
        host: request.headers.host,
      });
      return { answer: reply.code(202).send(started) };
    },
  });
}

function researchPdfRoute(app: App, deps: DesktopChatRouteDeps): void {
  const { chat } = deps.desktop;
  app.get(
    '/messages/:message_id/research.pdf',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'PDF of your completed research analysis (title, sections, cited sources); message_id is the reply message; 404 until it completes or when not yours',
        params: MessageParams,
        response: {
          200: {
            description: 'The research report (application/pdf, inline)',
            content: { 'application/pdf': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
          },
        },
      },
    },
    async (request, reply) => {
      const raw = request.params.message_id;
      const messageId = MESSAGE_ID.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(messageId)) throw notFound('Completed research');
      const research = await chat.completedResearch(customerOf(request).customerId, messageId);
      const pdf = await researchPdf(research);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="research-${request.params.message_id}.pdf"`)
        .send(pdf);
    },
  );
}
