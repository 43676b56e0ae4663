/** The links mailed about an address: undoing an email change and verifying an address (public). */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { Clock } from '../../../../../kernel/clock.js';
import type { App } from '../../../../types.js';

const publicAccount = { auth: 'public', surface: 'account' } as const;

const EmailUndoBody = Type.Object(
  { token: Type.String({ minLength: 20, maxLength: 200, description: 'The token from the link mailed to the old address.' }) },
  { additionalProperties: false },
);

export interface EmailLinkRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'emailVerification' | 'webAuth'>;
  clock: Clock;
}

export function emailLinkRoutes(app: App, deps: EmailLinkRouteDeps): void {
  const { accounts, clock } = deps;

  app.post(
    '/email-change/undo',
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
    '/verify-email',
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
}
