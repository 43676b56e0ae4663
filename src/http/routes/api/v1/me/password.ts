/** The account's sign-in credentials: changing the password (`/api/v1/me/password`) and minting a single-use dashboard link (`/api/v1/me/sso-link`). */
import { Type } from '@sinclair/typebox';
import { isSessionPrincipal } from '../../../../../accounts/sessions.js';
import { AppError } from '../../../../../kernel/errors.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { credentialChangeAlert, sensitive } from './credential-changes.js';

const PasswordBody = Type.Object(
  {
    current_password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Required unless the account has no password yet (identity-provider sign-up).',
      }),
    ),
    new_password: Type.String({ minLength: 8, maxLength: 256 }),
  },
  { additionalProperties: false },
);

const DashboardSsoLinkBody = Type.Object(
  {
    returnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'A path of this site; default /dashboard.html.' })),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 300, description: 'Lifetime, at most 300 seconds (default 300).' })),
  },
  { additionalProperties: false },
);

export interface PasswordRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'sso' | 'webAuth'>;
  config: AppConfig;
}

export function passwordRoutes(app: App, deps: PasswordRouteDeps): void {
  const { accounts, config } = deps;
  const raiseChange = credentialChangeAlert(accounts);

  app.post(
    '/password',
    {
      config: sensitive('change-password'),
      schema: {
        tags: ['account'],
        summary:
          'Changes the password (dashboard, CLI login); every other dashboard session ends. An identity-provider account sets its first password without current_password',
        body: PasswordBody,
      },
    },
    async (request) => {
      const caller = customerOf(request);
      const keep = isSessionPrincipal(caller) ? caller.session.id : undefined;
      // A first password (no current one to prove) is set only from a dashboard session, never with a bare key.
      if (request.body.current_password === undefined && keep === undefined) {
        throw new AppError('FORBIDDEN', 'Setting a password without the current one needs a dashboard session from a recent sign-in');
      }
      await accounts.webAuth.changePassword(caller.customerId, request.body.current_password, request.body.new_password, keep);
      await raiseChange(caller.customerId, 'password_changed', {});
      return { password_changed: true };
    },
  );

  app.post(
    '/sso-link',
    {
      config: sensitive('mint-sso-link'),
      schema: {
        tags: ['account'],
        summary: 'A signed single-use dashboard link valid at most 5 minutes: {url, expires_at}',
        body: DashboardSsoLinkBody,
      },
    },
    async (request, reply) => {
      const caller = customerOf(request);
      // The session the link opens carries the minting credential's policy (never wider than it).
      const issued = await accounts.sso.issue(caller.customerId, caller.policy, (request.body.ttlSeconds ?? 300) * 1000);
      await raiseChange(caller.customerId, 'sso_link_issued', { expires_at: new Date(issued.expiresAt).toISOString() });
      const query = new URLSearchParams({ token: issued.token });
      if (request.body.returnTo !== undefined) query.set('returnTo', request.body.returnTo);
      reply.header('cache-control', 'no-store');
      return reply
        .code(201)
        .send({ url: `${config.publicBaseUrl}/api/v1/auth/sso?${query.toString()}`, expires_at: new Date(issued.expiresAt).toISOString() });
    },
  );
}
