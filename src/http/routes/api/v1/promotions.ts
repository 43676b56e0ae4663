/**
 * Promotions of the caller (daily check-in, spin wheel, share credit, referral club, raffle) and the public share
 * link `/r/{referral_code}` that records a visit and sends the visitor to the public site.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../../kernel/errors.js';
import type { ConversionInput } from '../../../../promotions/ad-network.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { PromotionServices } from '../../../../promotions/index.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);

const visitOf = (request: FastifyRequest) => ({ address: request.ip, userAgent: String(request.headers['user-agent'] ?? '') });

export interface PromotionRouteDeps {
  promotions: PromotionServices;
  billing: Pick<BillingServices, 'limiter'>;
  config: AppConfig;
}

export async function promotionRoutes(app: App, deps: PromotionRouteDeps): Promise<void> {
  const { promotions } = deps;
  const tags = ['promotions'];

  app.get(
    '/api/v1/daily-checkin',
    { config: walletOwner, schema: { tags, summary: 'Daily check-in status: streak, next reward, next claim time (UTC days)' } },
    async (request) => promotions.checkinStatus(customerOf(request).customerId),
  );
  app.post(
    '/api/v1/daily-checkin/claim',
    {
      config: walletOwner,
      schema: { tags, summary: "Claim today's check-in reward (once per UTC day; 409 when already claimed)", body: Type.Optional(NoBody) },
    },
    async (request) => promotions.claimCheckin(customerOf(request).customerId),
  );
  app.get(
    '/api/v1/spin-wheel',
    { config: walletOwner, schema: { tags, summary: 'Spin-wheel status: entry left, prize table, result' } },
    async (request) => promotions.spinStatus(customerOf(request).customerId),
  );
  app.post(
    '/api/v1/spin-wheel/spin',
    { config: walletOwner, schema: { tags, summary: 'Use the single spin-wheel entry (409 when used)', body: Type.Optional(NoBody) } },
    async (request) => promotions.spin(customerOf(request).customerId),
  );
  app.get(
    '/api/v1/share-credit',
    { config: walletOwner, schema: { tags, summary: 'The one-time share credit: share link, visits by others, claimed or not' } },
    async (request) => promotions.shareCreditStatus(customerOf(request).customerId, visitOf(request)),
  );
  app.post(
    '/api/v1/share-credit/claim',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Claim the one-time share credit once the share link was opened by someone else (409 says what is missing)',
        body: Type.Optional(NoBody),
      },
    },
    async (request) => promotions.claimShareCredit(customerOf(request).customerId, visitOf(request)),
  );
  app.get(
    '/api/v1/referral',
    {
      config: walletOwner,
      schema: { tags, summary: 'Referral code and link, club level, referred customers (counts), cash-wallet earnings' },
    },
    async (request) => promotions.referralStatus(customerOf(request).customerId),
  );
  app.get(
    '/api/v1/raffle',
    {
      config: walletOwner,
      schema: { tags, summary: 'Current raffle (prize, entries, draw time, seed hash) and past draws with seeds and winners' },
    },
    async (request) => promotions.raffleStatus(customerOf(request).customerId),
  );

  const RedditConversionBody = Type.Object(
    {
      event_id: Type.String({ minLength: 1, maxLength: 128 }),
      event_type: Type.Union(
        ['PageVisit', 'ViewContent', 'Search', 'AddToCart', 'AddToWishlist', 'Purchase', 'Lead', 'SignUp'].map((name) =>
          Type.Literal(name),
        ),
      ),
      event_at: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' })),
      click_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
      value: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
      currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
      item_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    },
    { additionalProperties: false },
  );
  app.post(
    '/api/v1/adnetwork/conversion',
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
      const result = await promotions.adNetwork.forward(request.body as ConversionInput);
      return reply.code(result.duplicate ? 200 : 202).send({ accepted: true, duplicate: result.duplicate });
    },
  );

  app.get(
    '/r/:referral_code',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary: 'Share link: records the visit and redirects to the public site',
        params: Type.Object({ referral_code: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request, reply) => reply.redirect(await promotions.recordShareVisit(request.params.referral_code, visitOf(request)), 302),
  );
}
