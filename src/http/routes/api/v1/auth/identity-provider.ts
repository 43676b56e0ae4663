/** Sign-up and sign-in through the identity provider (OpenID Connect): `/api/v1/auth/idp/start` and `/api/v1/auth/idp/callback`. */
import { Type } from '@sinclair/typebox';
import { safeReturnTo } from '../../../../../accounts/sso.js';
import { OidcError } from '../../../../../accounts/oidc.js';
import { AppError } from '../../../../../kernel/errors.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { Clock } from '../../../../../kernel/clock.js';
import type { App } from '../../../../types.js';
import { referralCodeFrom } from '../../../shared/referral-cookie.js';
import { HumanCheckFields } from './human-check.js';
import { setSessionCookies } from './session-cookies.js';

const publicAccount = { auth: 'public', surface: 'account' } as const;

const IdpStartQuery = Type.Object({
  planId: Type.Optional(Type.String({ maxLength: 100 })),
  amountUsd: Type.Optional(
    Type.String({
      maxLength: 20,
      pattern: '^[0-9]{1,9}(\\.[0-9]{1,6})?$',
      description: 'A number of US dollars (number or numeric string).',
    }),
  ),
  returnTo: Type.Optional(Type.String({ maxLength: 2048 })),
  deviceFingerprint: Type.Optional(Type.String({ maxLength: 512 })),
  countryCode: Type.Optional(Type.String({ maxLength: 8 })),
  countryName: Type.Optional(Type.String({ maxLength: 100 })),
  mobileNumber: Type.Optional(Type.String({ maxLength: 32 })),
  referralCode: Type.Optional(Type.String({ maxLength: 100 })),
  source: Type.Optional(Type.String({ maxLength: 100 })),
  ...HumanCheckFields,
  website: Type.Optional(Type.String({ maxLength: 2048, description: 'Leave empty.' })),
});

const IdpCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
});

export interface IdentityProviderRouteDeps {
  accounts: Pick<AccountServices, 'humanCheckRequired' | 'humanChecks' | 'oidc' | 'sessions'>;
  config: AppConfig;
  clock: Clock;
}

export function identityProviderRoutes(app: App, deps: IdentityProviderRouteDeps): void {
  const { accounts, config, clock } = deps;

  app.get(
    '/idp/start',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Starts identity-provider sign-up or sign-in: 302 to the provider (authorization code + PKCE S256)',
        description:
          'planId, amountUsd, referralCode (else the sy_ref cookie), source, countryCode, countryName, deviceFingerprint and mobileNumber are recorded for a new account (shown to the operator); ' +
          'planId or amountUsd lead the new account to the checkout after sign-up. website must stay empty.',
        querystring: IdpStartQuery,
      },
    },
    async (request, reply) => {
      const query = request.query;
      if (query.website !== undefined && query.website.trim() !== '') throw new AppError('BAD_REQUEST', 'Request refused');
      if (!accounts.oidc.enabled) throw new AppError('NOT_FOUND', 'Identity-provider sign-in is not configured');
      if (accounts.humanCheckRequired('idp')) await accounts.humanChecks.verify(query, 'query');
      const url = await accounts.oidc.start(safeReturnTo(query.returnTo), {
        referralCode: referralCodeFrom(request, query.referralCode),
        planId: query.planId,
        amountUsdMicros: query.amountUsd === undefined ? undefined : Math.round(Number(query.amountUsd) * 1_000_000),
        source: query.source,
        countryCode: query.countryCode,
        countryName: query.countryName,
        deviceFingerprint: query.deviceFingerprint,
        mobileNumber: query.mobileNumber,
      });
      reply.header('cache-control', 'no-store');
      return reply.redirect(url.href, 302);
    },
  );

  app.get(
    '/idp/callback',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary:
          'Completes identity-provider sign-in: session cookie and 302 to returnTo, or 302 to /login.html?error=<code>; 404 without a provider',
        querystring: IdpCallbackQuery,
      },
    },
    async (request, reply) => {
      if (!accounts.oidc.enabled) throw new AppError('NOT_FOUND', 'Identity-provider sign-in is not configured');
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      const raw = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        const done = await accounts.oidc.complete(new URLSearchParams(raw));
        // The identity provider has just authenticated the person: a recent sign-in, like a password.
        const session = await accounts.sessions.open(done.customerId, { authenticated: true });
        setSessionCookies(reply, session, clock.nowMs(), config.publicBaseUrl);
        return reply.redirect(done.returnTo, 302);
      } catch (error) {
        if (error instanceof OidcError) return reply.redirect(`/login.html?error=${error.code}`, 302);
        throw error;
      }
    },
  );
}
