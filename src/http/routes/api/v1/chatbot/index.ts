/**
 * The chat bot, `/api/v1/chatbot/…`: the webhook (Telegram Bot API-style updates, authenticated by the secret-token
 * header before anything is done) and the one-time code a signed-in customer sends to the bot to link a chat; the
 * identity-provider round trip that links one instead is `identity-provider.ts` beside this file.
 */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../../kernel/errors.js';
import type { ChatbotServices } from '../../../../../chatbot/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { chatbotIdentityProviderRoutes } from './identity-provider.js';

const Update = Type.Object(
  {
    update_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    message: Type.Optional(
      Type.Object(
        {
          chat: Type.Optional(
            Type.Object(
              { id: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 32 })])) },
              { additionalProperties: true },
            ),
          ),
          text: Type.Optional(Type.String({ maxLength: 4096 })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true, description: 'A Bot API Update; only message.chat.id and message.text are read.' },
);
const publicBot = { auth: 'public', surface: 'account' } as const;

export interface ChatbotRouteDeps {
  chatbot: Pick<ChatbotServices, 'bot' | 'linking'>;
  config: AppConfig;
}

export async function chatbotRoutes(app: App, deps: ChatbotRouteDeps): Promise<void> {
  const { bot, linking } = deps.chatbot;

  app.post(
    '/link-code',
    {
      config: { auth: 'api', surface: 'account', caller: 'customer' },
      schema: {
        tags: ['chatbot'],
        summary: 'A one-time code (10 minutes, used once) that links a bot chat to your account: send /link <code> to the bot',
      },
    },
    async (request, reply) => {
      const issued = await linking.issueCode(customerOf(request).customerId);
      reply.header('cache-control', 'no-store');
      return reply
        .code(201)
        .send({ code: issued.code, command: `/link ${issued.code}`, expires_at: new Date(issued.expiresAt).toISOString() });
    },
  );

  app.post(
    '/webhook',
    {
      config: publicBot,
      bodyLimit: 256 * 1024,
      // The secret is checked first, before the body is read: an unsigned caller learns nothing about the body's
      // rules (no 400, 413 or 422) and costs no parsing.
      onRequest: async (request) => {
        if (!bot.verifySecret(request.headers['x-telegram-bot-api-secret-token'] as string | undefined))
          throw new AppError('UNAUTHENTICATED', 'Webhook secret missing or wrong');
      },
      schema: {
        tags: ['chatbot'],
        summary:
          'Inbound chat-bot update (header X-Telegram-Bot-Api-Secret-Token = configured secret; else 401): /balance, /usage, /alerts for linked chats; /start, /help, /link, /unlink',
        description:
          'Answers go out as Bot API sendMessage calls when a bot token is configured ({ok, delivered}); otherwise the answer is this response body ({method: "sendMessage", chat_id, text}). A redelivered update_id is acknowledged and not answered again.',
        body: Update,
      },
    },
    async (request) => {
      const handled = await bot.handle(request.body as never);
      if (handled.reply && !deps.config.chatbot.botToken) return handled.reply;
      return { ok: true, duplicate: handled.duplicate, delivered: handled.delivered };
    },
  );

  chatbotIdentityProviderRoutes(app, deps);
}
