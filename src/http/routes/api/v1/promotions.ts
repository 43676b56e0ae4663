/**
 * Promotions of the caller (daily check-in, spin wheel, share credit, referral club, raffle) and the public share
 * link `/r/{referral_code}` that records a visit and sends the visitor to the public site.
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { cookieValue } from '../../../../accounts/sessions.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../../kernel/errors.js';
import type { ConversionInput } from '../../../../promotions/ad-network.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { PromotionServices } from '../../../../promotions/index.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
/** A claim of free credit: the solved human check (required by default). */
const ClaimBody = Type.Union([
  Type.Object(
    {
      humanCheck: Type.Optional(
        Type.String({ minLength: 1, maxLength: 4096, description: 'The solved ALTCHA challenge from GET /api/v1/auth/human-check.' }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

/** The browser cookie that makes a share-link visit count once per browser. */
export const VISITOR_COOKIE = 'sy_visitor';

const visitOf = (request: FastifyRequest) => ({
  address: request.ip,
  userAgent: String(request.headers['user-agent'] ?? ''),
  browser: cookieValue(request.headers.cookie, VISITOR_COOKIE),
});

export interface PromotionRouteDeps {
  promotions: PromotionServices;
  accounts: Pick<AccountServices, 'addressLimits' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks'>;
  billing: Pick<BillingServices, 'limiter'>;
  config: AppConfig;
}

export async function promotionRoutes(app: App, deps: PromotionRouteDeps): Promise<void> {
  const { promotions, accounts } = deps;
  const tags = ['promotions'];

  /**
   * Free credit costs an abuser something: a verified email, a solved human check (by default) and a place in
   * the network's daily claim limit. Checked before the claim; a refused claim changes nothing.
   */
  const admitClaim = async (request: FastifyRequest): Promise<number> => {
    const { customerId } = customerOf(request);
    if (!(await accounts.emailVerification.isVerified(customerId))) {
      throw new AppError('FORBIDDEN', 'Verify your email address first: free credit needs a verified account', {
        details: { missing: 'email_verification', resend: '/api/v1/me/email/verification' },
      });
    }
    const body = (request.body ?? {}) as { humanCheck?: string };
    if (accounts.humanCheckRequired('promotion')) await accounts.humanChecks.verify({ humanCheck: body.humanCheck });
    await accounts.addressLimits.admit('promotion', request.ip);
    return customerId;
  };

  app.get(
    '/api/v1/daily-checkin',
    { config: walletOwner, schema: { tags, summary: 'Daily check-in status: streak, next reward, next claim time (UTC days)' } },
    async (request) => promotions.checkinStatus(customerOf(request).customerId),
  );
  app.post(
    '/api/v1/daily-checkin/claim',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: "Claim today's check-in reward (once per UTC day; 409 when already claimed; needs a verified email and humanCheck)",
        body: Type.Optional(ClaimBody),
      },
    },
    async (request) => promotions.claimCheckin(await admitClaim(request)),
  );
  app.get(
    '/api/v1/spin-wheel',
    { config: walletOwner, schema: { tags, summary: 'Spin-wheel status: entry left, prize table, result' } },
    async (request) => promotions.spinStatus(customerOf(request).customerId),
  );
  app.post(
    '/api/v1/spin-wheel/spin',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Use the single spin-wheel entry (409 when used; needs a verified email and humanCheck)',
        body: Type.Optional(ClaimBody),
      },
    },
    async (request) => promotions.spin(await admitClaim(request)),
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
        summary:
          'Claim the one-time share credit once the share link was opened from another network and browser (409 says what is missing; needs a verified email and humanCheck)',
        body: Type.Optional(ClaimBody),
      },
    },
    async (request) => promotions.claimShareCredit(await admitClaim(request), visitOf(request)),
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
        summary: 'Share link: records the visit (once per network and browser) and redirects to the public site',
        params: Type.Object({ referral_code: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      const visit = visitOf(request);
      if (visit.browser === undefined || !/^[A-Za-z0-9_-]{20,64}$/.test(visit.browser)) {
        visit.browser = randomBytes(24).toString('base64url');
        const secure = deps.config.publicBaseUrl.startsWith('https://') ? '; Secure' : '';
        reply.header('set-cookie', `${VISITOR_COOKIE}=${visit.browser}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`);
      }
      return reply.redirect(await promotions.recordShareVisit(request.params.referral_code, visit), 302);
    },
  );
}
