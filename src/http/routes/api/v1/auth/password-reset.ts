/** Password reset by mail: `/api/v1/auth/password-reset/request` and `/api/v1/auth/password-reset/confirm` (public). */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { App } from '../../../../types.js';

const publicAccount = { auth: 'public', surface: 'account' } as const;

const PasswordResetRequestBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false });

const PasswordResetConfirmBody = Type.Object(
  {
    token: Type.String({ minLength: 20, maxLength: 200, description: 'The token from the emailed link.' }),
    password: Type.String({ minLength: 8, maxLength: 256, description: 'The new password.' }),
  },
  { additionalProperties: false },
);

export interface PasswordResetRouteDeps {
  accounts: Pick<AccountServices, 'webAuth'>;
}

export function passwordResetRoutes(app: App, deps: PasswordResetRouteDeps): void {
  const { accounts } = deps;

  app.post(
    '/password-reset/request',
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
    '/password-reset/confirm',
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
}
