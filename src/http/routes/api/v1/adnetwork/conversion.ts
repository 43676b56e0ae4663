/** Server-side conversion events forwarded to the ad network: `/api/v1/adnetwork/conversion` (public, rate-limited). */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../../kernel/errors.js';
import type { ConversionInput } from '../../../../../promotions/ad-network.js';
import type { BillingServices } from '../../../../../billing/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { PromotionServices } from '../../../../../promotions/index.js';
import type { App } from '../../../../types.js';

const RedditConversionBody = Type.Object(
  {
    event_id: Type.String({ minLength: 1, maxLength: 128 }),
    event_type: Type.Union(
      ['PageVisit', 'ViewContent', 'Search', 'AddToCart', 'AddToWishlist', 'Purchase', 'Lead', 'SignUp'].map((name) => Type.Literal(name)),
    ),
    event_at: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' })),
    click_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    value: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    item_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  },
  { additionalProperties: false },
);

export interface AdNetworkRouteDeps {
  promotions: Pick<PromotionServices, 'adNetwork'>;
  billing: Pick<BillingServices, 'limiter'>;
  config: Pick<AppConfig, 'adNetwork'>;
}

export async function adNetworkRoutes(app: App, deps: AdNetworkRouteDeps): Promise<void> {
  app.post(
    '/conversion',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary: 'Server-side conversion event forwarded to the ad network (deduplicated by event_id, rate-limited per address)',
        body: RedditConversionBody,
      },
    },
    async (request, reply) => {
      const admission = await deps.billing.limiter.admit(`adnetwork:${request.ip}`, {
        requestsPerMinute: deps.config.adNetwork.requestsPerMinute,
      });
      if (!admission.allowed)
        throw new AppError('RATE_LIMITED', 'Too many conversion events', { retryAfterSeconds: admission.retryAfterMs / 1000 });
      await admission.release();
      const result = await deps.promotions.adNetwork.forward(request.body as ConversionInput);
      return reply.code(result.duplicate ? 200 : 202).send({ accepted: true, duplicate: result.duplicate });
    },
  );
}
