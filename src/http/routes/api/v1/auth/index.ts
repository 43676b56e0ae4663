/**
 * Dashboard sign-in, `/api/v1/auth/…`: web login (+ 2FA step) and sign-out here; password reset, the mailed
 * address links, SSO link redemption, the identity provider, re-authentication and the human check in the files
 * beside this one. The session id travels only in the HttpOnly cookie; the CSRF token in the body and a readable
 * cookie.
 */
import { Type } from '@sinclair/typebox';
import { isSessionPrincipal } from '../../../../../accounts/sessions.js';
import { validationError } from '../../../../../kernel/errors.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { Clock } from '../../../../../kernel/clock.js';
import type { App } from '../../../../types.js';
import { clearSessionCookies, sessionView, setSessionCookies } from './session-cookies.js';
import { emailLinkRoutes } from './email-links.js';
import { HumanCheckFields, humanCheckRoutes } from './human-check.js';
import { identityProviderRoutes } from './identity-provider.js';
import { passwordResetRoutes } from './password-reset.js';
import { reauthenticateRoutes } from './reauthenticate.js';
import { ssoRoutes } from './sso.js';

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

const publicAccount = { auth: 'public', surface: 'account' } as const;

export interface AuthRouteDeps {
  accounts: Pick<
    AccountServices,
    'alerts' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks' | 'oidc' | 'registration' | 'sessions' | 'sso' | 'webAuth'
  >;
  config: AppConfig;
  clock: Clock;
}

export async function authRoutes(app: App, deps: AuthRouteDeps): Promise<void> {
  const { accounts, config, clock } = deps;

  app.post(
    '/web-login',
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
    '/web-login/2fa',
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
    '/logout',
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

  passwordResetRoutes(app, deps);
  emailLinkRoutes(app, deps);
  ssoRoutes(app, deps);
  identityProviderRoutes(app, deps);
  reauthenticateRoutes(app, deps);
  humanCheckRoutes(app, deps);
}
