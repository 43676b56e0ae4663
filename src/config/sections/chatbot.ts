/** The chat bot (Telegram Bot API style): webhook secret, outbound Bot API and account linking. */
import { Type, type Static } from '@sinclair/typebox';

export const ChatbotSection = Type.Object(
  {
    webhookSecret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'Expected X-Telegram-Bot-Api-Secret-Token of every webhook call; unset: the webhook answers 401 to everything.',
      }),
    ),
    botToken: Type.Optional(Type.String({ minLength: 1, description: 'Bot API token used for sendMessage.' })),
    apiBaseUrl: Type.String({
      pattern: '^https?://',
      default: 'https://api.telegram.org',
      description: 'Bot API base URL; replies go to <apiBaseUrl>/bot<token>/sendMessage.',
    }),
    idpRedirectUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: 'Redirect URI registered at the identity provider for chat linking; default <public URL>/api/v1/chatbot/idp/callback.',
      }),
    ),
    linkTtlSeconds: Type.Integer({
      minimum: 60,
      maximum: 86_400,
      default: 900,
      description: 'Lifetime of the signed link a chat receives to connect an account.',
    }),
    alertsLimit: Type.Integer({ minimum: 1, maximum: 50, default: 5, description: 'Alerts shown by /alerts.' }),
  },
  { default: {}, additionalProperties: false },
);
export type ChatbotConfig = Static<typeof ChatbotSection>;
