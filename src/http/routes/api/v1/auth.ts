/**
 * Public dashboard sign-in routes: web login (+ 2FA step), sign-out, password reset, SSO link redemption and
 * the human check. The session id travels only in the HttpOnly cookie; the CSRF token in the body and a
 * readable cookie.
 */
import { Type } from '@sinclair/typebox';
import { safeReturnTo } from '../../../../accounts/sso.js';
import { isSessionPrincipal } from '../../../../accounts/sessions.js';
import { OidcError } from '../../../../accounts/oidc.js';
import { AppError, validationError } from '../../../../kernel/errors.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { Clock } from '../../../../kernel/clock.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';
import { clearSessionCookies, sessionView, setSessionCookies } from './session-cookies.js';

const HumanCheckFields = {
  humanCheck: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'The solved ALTCHA challenge (the widget payload) from GET /api/v1/auth/human-check.',
    }),
  ),
};

export const ChatPlusLoginBody = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    login: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Email or username.' })),
    password: Type.String({ minLength: 1, maxLength: 256 }),
    ...HumanCheckFields,
  },
  { additionalProperties: false },
);

const ChatPlusTwoFactorVerifyBody = Type.Object(
  {
    challenge: Type.String({ minLength: 20, maxLength: 100, description: 'The challenge from the first web-login step.' }),
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit authenticator-app code.' }),
  },
  { additionalProperties: false },
);

const PasswordResetRequestBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false });

const PasswordResetConfirmBody = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 200, description: 'The token from the emailed link.' }),
    password: Type.String({ minLength: 8, maxLength: 256, description: 'The new password.' }),
  },
  { additionalProperties: false },
);

const SsoQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 1024 })),
  returnTo: Type.Optional(Type.String({ maxLength: 2048 })),
});

const ReauthenticateBody = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'A current authenticator-app code (when 2FA is on).' })),
  },
  { additionalProperties: false },
);

const EmailUndoBody = Type.Object(
  { token: Type.String({ minLength: 20, maxLength: 200, description: 'The token from the link mailed to the old address.' }) },
  { additionalProperties: false },
);

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

const publicAccount = { auth: 'public', surface: 'account' } as const;

export interface AuthRouteDeps {
  accounts: Pick<
    AccountServices,
    'alerts' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks' | 'oidc' | 'sessions' | 'sso' | 'webAuth'
  >;
  config: AppConfig;
  clock: Clock;
}

export async function authRoutes(app: App, deps: AuthRouteDeps): Promise<void> {
  const { accounts, config, clock } = deps;

  app.post(
    '/api/v1/auth/web-login',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Dashboard sign-in: sets the session cookie, or answers with a 2FA challenge when 2FA is on',
        description:
          'Body: email, username or login (exactly one) + password; humanCheck (a solved challenge) after repeated failures of the account (when configured) or of the address. ' +
          'Answer without 2FA: {two_factor_required:false, customer_id, csrf_token, csrf_header, expires_at} and the cookies sy_session (HttpOnly) and sy_csrf. ' +
          'With 2FA: {two_factor_required:true, challenge, expires_at}; complete with POST /api/v1/auth/web-login/2fa.',
        body: ChatPlusLoginBody,
      },
    },
    async (request, reply) => {
      const { email, username, login, password, humanCheck } = request.body;
      const given = [email, username, login].filter((value) => value !== undefined);
      if (given.length !== 1) {
        throw validationError([{ loc: ['body', 'email'], msg: 'Give exactly one of email, username or login', type: 'value_error' }]);
      }
      const result = await accounts.webAuth.webLogin(given[0]!, password, request.ip, { humanCheck });
      if (result.kind === 'challenge') {
        reply.header('cache-control', 'no-store');
        return { two_factor_required: true, challenge: result.challenge, expires_at: new Date(result.expiresAt).toISOString() };
      }
      setSessionCookies(reply, result.session, clock.nowMs(), config.publicBaseUrl);
      return sessionView(result.session, result.customerId);
    },
  );

  app.post(
    '/api/v1/auth/web-login/2fa',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Second web-login step: the challenge and an authenticator-app code; sets the session cookie',
        body: ChatPlusTwoFactorVerifyBody,
      },
    },
    async (request, reply) => {
      const completed = await accounts.webAuth.completeTwoFactor(request.body.challenge, request.body.code, request.ip);
      setSessionCookies(reply, completed.session, clock.nowMs(), config.publicBaseUrl);
      return sessionView(completed.session, completed.customerId);
    },
  );

  app.post(
    '/api/v1/auth/logout',
    {
      config: { auth: 'api', surface: 'account' },
      schema: { tags: ['auth'], summary: 'Ends the calling dashboard session and clears its cookies' },
    },
    async (request, reply) => {
      if (isSessionPrincipal(request.principal)) await accounts.sessions.end(request.principal.session.id);
      clearSessionCookies(reply, config.publicBaseUrl);
      return { signed_out: true };
    },
  );

  app.post(
    '/api/v1/auth/password-reset/request',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Emails a single-use reset link valid 30 minutes; the same answer for known and unknown emails',
        body: PasswordResetRequestBody,
      },
    },
    async (request, reply) => {
      await accounts.webAuth.requestPasswordReset(request.body.email, request.ip);
      return reply.code(202).send({ requested: true, message: 'If an account uses this email, a reset link is on its way.' });
    },
  );

  app.post(
    '/api/v1/auth/password-reset/confirm',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Sets a new password from a reset link; ends every dashboard session (API keys keep working)',
        body: PasswordResetConfirmBody,
      },
    },
    async (request) => {
      await accounts.webAuth.confirmPasswordReset(request.body.token, request.body.password, request.ip);
      return { password_reset: true };
    },
  );

  app.get(
    '/api/v1/auth/sso',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Opens a dashboard session from a signed single-use link and redirects (302) to returnTo (own paths only)',
        querystring: SsoQuery,
      },
    },
    async (request, reply) => {
      const returnTo = safeReturnTo(request.query.returnTo);
      const link = request.query.token === undefined ? null : await accounts.sso.redeem(request.query.token);
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      if (link === null) return reply.redirect(`/login.html?error=sso_link_invalid`, 302);
      // No password was checked: the session carries the link's policy and is not a recent sign-in.
      const session = await accounts.sessions.open(link.customerId, { authenticated: false, policy: link.policy });
      setSessionCookies(reply, session, clock.nowMs(), config.publicBaseUrl);
      return reply.redirect(returnTo, 302);
    },
  );

  app.get(
    '/api/v1/auth/idp/start',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Starts identity-provider sign-up or sign-in: 302 to the provider (authorization code + PKCE S256)',
        description: 'planId, amountUsd, referralCode, source and countryCode are recorded for a new account. website must stay empty.',
        querystring: IdpStartQuery,
      },
    },
    async (request, reply) => {
      const query = request.query;
      if (query.website !== undefined && query.website.trim() !== '') throw new AppError('BAD_REQUEST', 'Request refused');
      if (!accounts.oidc.enabled) throw new AppError('NOT_FOUND', 'Identity-provider sign-in is not configured');
      if (accounts.humanCheckRequired('idp')) await accounts.humanChecks.verify(query, 'query');
      const url = await accounts.oidc.start(safeReturnTo(query.returnTo), {
        referralCode: query.referralCode,
        planId: query.planId,
        amountUsdMicros: query.amountUsd === undefined ? undefined : Math.round(Number(query.amountUsd) * 1_000_000),
        source: query.source,
        countryCode: query.countryCode,
      });
      reply.header('cache-control', 'no-store');
      return reply.redirect(url.href, 302);
    },
  );

  app.get(
    '/api/v1/auth/idp/callback',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Completes identity-provider sign-in: session cookie and 302 to returnTo, or 302 to /login.html?error=<code>',
        querystring: IdpCallbackQuery,
      },
    },
    async (request, reply) => {
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

  app.post(
    '/api/v1/auth/reauthenticate',
    {
      config: { auth: 'api', surface: 'account', caller: 'customer' },
      schema: {
        tags: ['auth'],
        summary: 'Confirms the password (or a current authenticator code) for the calling dashboard session',
        description:
          'A session may mint or change credentials only within accounts.recentAuthMinutes of a checked password or code; a session opened from an SSO link starts without one.',
        body: ReauthenticateBody,
      },
    },
    async (request) => {
      const caller = customerOf(request);
      if (!isSessionPrincipal(caller)) throw new AppError('BAD_REQUEST', 'Only a dashboard session re-authenticates; keys need not');
      await accounts.webAuth.reauthenticate(caller.customerId, caller.session.id, request.body);
      return { reauthenticated: true, recent_for_seconds: config.accounts.recentAuthMinutes * 60 };
    },
  );

  app.post(
    '/api/v1/auth/email-change/undo',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Undoes an email change from the link mailed to the old address (once, within 7 days); ends every dashboard session',
        body: EmailUndoBody,
      },
    },
    async (request) => {
      const customerId = await accounts.webAuth.undoEmailChange(request.body.token, request.ip);
      await accounts.alerts.raise(customerId, { cause: 'email_change_undone', causeKey: `undo:${clock.nowMs()}`, details: {} });
      return { email_change_undone: true };
    },
  );

  app.get(
    '/api/v1/auth/verify-email',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Opens the emailed verification link (once, within 24 hours): 302 to the dashboard, or to the sign-in page with an error',
        querystring: Type.Object({ token: Type.String({ maxLength: 200 }) }),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      try {
        await accounts.emailVerification.confirm(request.query.token);
      } catch {
        return reply.redirect('/login.html?error=email_link_invalid', 302);
      }
      return reply.redirect('/dashboard.html?email_verified=1', 302);
    },
  );

  app.get(
    '/api/v1/auth/options',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'What the sign-in page offers: identity-provider sign-in, and where a human check is always required',
        response: {
          200: Type.Object({
            identity_provider: Type.Boolean({ description: 'GET /api/v1/auth/idp/start is configured.' }),
            human_check: Type.Object({
              register: Type.Boolean(),
              idp: Type.Boolean(),
              promotion: Type.Boolean({ description: 'Claiming a promotion needs a solved challenge.' }),
              web_login: Type.Boolean({ description: 'Asked after repeated failures (422 on humanCheck).' }),
            }),
          }),
        },
      },
    },
    async () => ({
      identity_provider: accounts.oidc.enabled,
      human_check: {
        register: accounts.humanCheckRequired('register'),
        promotion: accounts.humanCheckRequired('promotion'),
        idp: accounts.humanCheckRequired('idp'),
        web_login: accounts.humanCheckRequired('web-login'),
      },
    }),
  );

  app.get(
    '/api/v1/auth/human-check',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'A signed ALTCHA proof-of-work challenge {parameters, signature}; its solution is accepted once within 10 minutes',
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return accounts.humanChecks.create();
    },
  );
}
