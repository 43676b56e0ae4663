/**
 * The chat bot's public routes: the webhook (Telegram Bot API-style updates, authenticated by the secret-token
 * header before anything is done) and the identity-provider round trip that links a chat to an account.
 */
import { Type } from '@sinclair/typebox';
import { ChatLinkError, CHAT_ID_PATTERN } from '../../../../chatbot/link.js';
import { AppError } from '../../../../kernel/errors.js';
import type { ChatbotServices } from '../../../../chatbot/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';

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
const StartQuery = Type.Object({
  chat_id: Type.String({ pattern: CHAT_ID_PATTERN }),
  expires: Type.Integer({ minimum: 0, maximum: 1e11 }),
  sig: Type.String({ minLength: 16, maxLength: 128 }),
});
const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
});
const publicBot = { auth: 'public', surface: 'account' } as const;

export interface ChatbotRouteDeps {
  chatbot: Pick<ChatbotServices, 'bot' | 'linking'>;
  config: AppConfig;
}

export async function chatbotRoutes(app: App, deps: ChatbotRouteDeps): Promise<void> {
  const { bot, linking } = deps.chatbot;

  app.post(
    '/api/v1/chatbot/webhook',
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

  app.get(
    '/api/v1/chatbot/idp/start',
    {
      config: publicBot,
      schema: {
        tags: ['chatbot'],
        summary:
          'Starts linking a chat to your account: 302 to the identity provider (the signed link the bot sent: chat_id, expires, sig)',
        description:
          'A link not signed for this chat: 400 {detail, code: link_invalid}; expired: 400 link_expired; no provider configured: 404.',
        querystring: StartQuery,
      },
    },
    async (request, reply) => {
      if (!linking.enabled) throw new AppError('NOT_FOUND', 'Identity-provider sign-in is not configured');
      reply.header('cache-control', 'no-store');
      try {
        const url = await linking.start(request.query.chat_id, request.query.expires, request.query.sig);
        return reply.redirect(url.href, 302);
      } catch (error) {
        if (error instanceof ChatLinkError) throw new AppError('BAD_REQUEST', error.message, { details: { error: error.code } });
        throw error;
      }
    },
  );

  app.get(
    '/api/v1/chatbot/idp/callback',
    {
      config: publicBot,
      schema: {
        tags: ['chatbot'],
        summary: 'Completes chat linking: {linked: true, chat_id}; the chat is told. State single use (replayed, expired or unknown: 400)',
        querystring: CallbackQuery,
      },
    },
    async (request) => {
      const raw = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        const done = await linking.complete(new URLSearchParams(raw));
        await bot.send({ method: 'sendMessage', chat_id: done.chatId, text: `This chat is now linked to ${done.email}. Try /balance.` });
        return { linked: true, chat_id: done.chatId };
      } catch (error) {
        if (error instanceof ChatLinkError) throw new AppError('BAD_REQUEST', error.message, { details: { error: error.code } });
        throw error;
      }
    },
  );
}
