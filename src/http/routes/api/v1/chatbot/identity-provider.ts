/** Linking a bot chat to an account through the identity provider: `/api/v1/chatbot/idp/start` and `/api/v1/chatbot/idp/callback` (public, signed by the bot's link). */
import { Type } from '@sinclair/typebox';
import { ChatLinkError, CHAT_ID_PATTERN } from '../../../../../chatbot/link.js';
import { AppError } from '../../../../../kernel/errors.js';
import type { ChatbotServices } from '../../../../../chatbot/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';

const publicBot = { auth: 'public', surface: 'account' } as const;

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

export interface ChatbotIdentityProviderRouteDeps {
  chatbot: Pick<ChatbotServices, 'bot' | 'linking'>;
  config: AppConfig;
}

export function chatbotIdentityProviderRoutes(app: App, deps: ChatbotIdentityProviderRouteDeps): void {
  const { bot, linking } = deps.chatbot;

  app.get(
    '/idp/start',
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
    '/idp/callback',
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
