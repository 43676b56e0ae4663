/** Authenticator-app 2FA of the account: `/api/v1/me/2fa/setup`, `/enable` and `/disable`. */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { AccountPassword, credentialChangeAlert, sensitive } from './credential-changes.js';

const Code = Type.String({ pattern: '^[0-9]{6}$', description: 'A 6-digit authenticator-app code.' });

const EnableBody = Type.Object({ code: Code, password: AccountPassword }, { additionalProperties: false });

const DisableBody = Type.Object(
  { code: Type.Optional(Code), password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  { additionalProperties: false },
);

export interface TwoFactorRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'webAuth'>;
}

export function twoFactorRoutes(app: App, deps: TwoFactorRouteDeps): void {
  const { accounts } = deps;
  const raiseChange = credentialChangeAlert(accounts);

  app.post(
    '/2fa/setup',
    {
      config: sensitive('enrol-2fa'),
      schema: { tags: ['account'], summary: 'Starts authenticator-app 2FA: {secret, otpauth_uri, enabled:false}; active after /enable' },
    },
    async (request) => ({ ...(await accounts.webAuth.setupTwoFactor(customerOf(request).customerId)), enabled: false }),
  );

  app.post(
    '/2fa/enable',
    {
      config: sensitive('enrol-2fa'),
      schema: {
        tags: ['account'],
        summary: 'Confirms 2FA with the password and a current code; web login then asks for a code',
        body: EnableBody,
      },
    },
    async (request) => {
      const { customerId } = customerOf(request);
      await accounts.webAuth.enableTwoFactor(customerId, request.body.code, request.body.password, request.ip);
      await raiseChange(customerId, 'two_factor_enabled', {});
      return { enabled: true };
    },
  );

  app.post(
    '/2fa/disable',
    {
      config: sensitive('remove-2fa'),
      schema: { tags: ['account'], summary: 'Turns 2FA off with a current code or the password', body: DisableBody },
    },
    async (request) => {
      const { customerId } = customerOf(request);
      await accounts.webAuth.disableTwoFactor(customerId, request.body, request.ip);
      await raiseChange(customerId, 'two_factor_disabled', {});
      return { enabled: false };
    },
  );
}
