/**
 * Promotions of the caller, `/api/v1/…`: daily check-in, spin wheel, share credit, referral club, raffle. The public
 * share link is `r/referral-link.ts`, the ad network's conversion events `api/v1/adnetwork/conversion.ts`.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AccountServices } from '../../../../accounts/index.js';
import { AppError } from '../../../../kernel/errors.js';
import type { PromotionServices } from '../../../../promotions/index.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';
import { visitOf } from '../../shared/share-visit.js';

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

export interface PromotionRouteDeps {
  promotions: PromotionServices;
  accounts: Pick<AccountServices, 'addressLimits' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks'>;
}

/** Checks a claim of free credit and answers the claiming customer's id. */
type AdmitClaim = (request: FastifyRequest) => Promise<number>;
const tags = ['promotions'];

/**
 * Free credit costs an abuser something: a verified email, a solved human check (by default) and a place in the
 * network's daily claim limit. Checked before the claim; a refused claim changes nothing.
 */
function claimAdmission(accounts: PromotionRouteDeps['accounts']): AdmitClaim {
  return async (request) => {
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
}

export async function promotionRoutes(app: App, deps: PromotionRouteDeps): Promise<void> {
  const admitClaim = claimAdmission(deps.accounts);
  checkinAndSpinRoutes(app, deps.promotions, admitClaim);
  shareAndReferralRoutes(app, deps.promotions, admitClaim);
}

/** `/api/v1/daily-checkin*` and `/api/v1/spin-wheel*`. */
function checkinAndSpinRoutes(app: App, promotions: PromotionServices, admitClaim: AdmitClaim): void {
  app.get(
    '/daily-checkin',
    { config: walletOwner, schema: { tags, summary: 'Daily check-in status: streak, next reward, next claim time (UTC days)' } },
    async (request) => promotions.checkinStatus(customerOf(request).customerId),
  );
  app.post(
    '/daily-checkin/claim',
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
    '/spin-wheel',
    { config: walletOwner, schema: { tags, summary: 'Spin-wheel status: entry left, prize table, result' } },
    async (request) => promotions.spinStatus(customerOf(request).customerId),
  );
  app.post(
    '/spin-wheel/spin',
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
}

/** `/api/v1/share-credit*`, `/api/v1/referral` and `/api/v1/raffle`. */
function shareAndReferralRoutes(app: App, promotions: PromotionServices, admitClaim: AdmitClaim): void {
  app.get(
    '/share-credit',
    { config: walletOwner, schema: { tags, summary: 'The one-time share credit: share link, visits by others, claimed or not' } },
    async (request) => promotions.shareCreditStatus(customerOf(request).customerId, visitOf(request)),
  );
  app.post(
    '/share-credit/claim',
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
    '/referral',
    {
      config: walletOwner,
      schema: { tags, summary: 'Referral code and link, club level, referred customers (counts), cash-wallet earnings' },
    },
    async (request) => promotions.referralStatus(customerOf(request).customerId),
  );
  app.get(
    '/raffle',
    {
      config: walletOwner,
      schema: { tags, summary: 'Current raffle (prize, entries, draw time, seed hash) and past draws with seeds and winners' },
    },
    async (request) => promotions.raffleStatus(customerOf(request).customerId),
  );
}
