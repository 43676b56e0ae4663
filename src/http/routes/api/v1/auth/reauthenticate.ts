/** Confirming the password (or a 2FA code) for the calling dashboard session: `/api/v1/auth/reauthenticate`. */
import { Type } from '@sinclair/typebox';
import { isSessionPrincipal } from '../../../../../accounts/sessions.js';
import { AppError } from '../../../../../kernel/errors.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';

const ReauthenticateBody = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'A current authenticator-app code (when 2FA is on).' })),
  },
  { additionalProperties: false },
);

export interface ReauthenticateRouteDeps {
  accounts: Pick<AccountServices, 'webAuth'>;
  config: AppConfig;
}

export function reauthenticateRoutes(app: App, deps: ReauthenticateRouteDeps): void {
  const { accounts, config } = deps;

  app.post(
    '/reauthenticate',
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
}
