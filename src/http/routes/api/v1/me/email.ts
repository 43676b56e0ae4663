/** The account email: changing it (`/api/v1/me/email`) and mailing a new verification link (`/api/v1/me/email/verification`). */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../../kernel/errors.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { AccountPassword, credentialChangeAlert, customerAccount, sensitive } from './credential-changes.js';

const EmailBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }), password: AccountPassword },
  { additionalProperties: false },
);

export interface EmailRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'emailVerification' | 'lockout' | 'webAuth'>;
}

export function emailRoutes(app: App, deps: EmailRouteDeps): void {
  const { accounts } = deps;
  const raiseChange = credentialChangeAlert(accounts);

  app.post(
    '/email',
    {
      config: sensitive('change-email'),
      schema: {
        tags: ['account'],
        summary: 'Changes the account email with the password (unique; 409 when taken); the old address gets a link that undoes it',
        body: EmailBody,
      },
    },
    async (request) => {
      const { customerId } = customerOf(request);
      const changed = await accounts.webAuth.changeEmail(customerId, request.body.email, request.body.password);
      await raiseChange(customerId, 'email_changed', { email: changed.email }, `change:${changed.changeId}`);
      await accounts.emailVerification.send(customerId);
      return { email: changed.email, email_verified: false };
    },
  );

  app.post(
    '/email/verification',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Mails a new verification link to the account email (a few per 15 minutes); 409 when verified',
      },
    },
    async (request, reply) => {
      const { customerId } = customerOf(request);
      if (await accounts.emailVerification.isVerified(customerId)) throw new AppError('CONFLICT', 'The email address is already verified');
      await accounts.lockout.check('verification-mail', String(customerId), undefined);
      await accounts.lockout.fail('verification-mail', String(customerId), undefined);
      await accounts.emailVerification.send(customerId);
      return reply.code(202).send({ sent: true });
    },
  );
}
