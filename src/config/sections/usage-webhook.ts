import { Type, type Static } from '@sinclair/typebox';

export const UsageWebhookSection = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'Receiver of every settled call (POST, JSON {"type":"call.settled","call":{…}}), signed in x-switchyard-signature. Absent: no webhook.',
      }),
    ),
    secret: Type.String({
      default: '',
      description: 'HMAC-SHA256 key of the signature (t=<unix seconds>,v1=<hex of "t.body">); required with url, write it as ${ENV_NAME}.',
    }),
    pollMs: Type.Integer({ minimum: 100, default: 5_000, description: 'How often settled calls are queued and due deliveries sent.' }),
    timeoutMs: Type.Integer({ minimum: 100, default: 10_000, description: 'Time the receiver has to answer one delivery.' }),
    firstBackoffMs: Type.Integer({ minimum: 100, default: 10_000, description: 'Wait after a first failed delivery; doubled each time.' }),
    maxBackoffMs: Type.Integer({
      minimum: 1_000,
      default: 3_600_000,
      description: 'Longest wait between two attempts (deliveries are retried until they succeed).',
    }),
  },
  { default: {}, additionalProperties: false },
);
export type UsageWebhookConfig = Static<typeof UsageWebhookSection>;
