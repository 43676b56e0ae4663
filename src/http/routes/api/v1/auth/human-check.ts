/** What the sign-in page offers (`/api/v1/auth/options`) and the human check it may ask for (`/api/v1/auth/human-check`). */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { App } from '../../../../types.js';

const publicAccount = { auth: 'public', surface: 'account' } as const;

export const HumanCheckFields = {
  humanCheck: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'The solved ALTCHA challenge (the widget payload) from GET /api/v1/auth/human-check.',
    }),
  ),
};

export interface HumanCheckRouteDeps {
  accounts: Pick<AccountServices, 'humanCheckRequired' | 'humanChecks' | 'oidc' | 'registration'>;
}

export function humanCheckRoutes(app: App, deps: HumanCheckRouteDeps): void {
  const { accounts } = deps;

  app.get(
    '/options',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'What the sign-in page offers: identity-provider sign-in, and where a human check is always required',
        response: {
          200: Type.Object({
            identity_provider: Type.Boolean({ description: 'GET /api/v1/auth/idp/start is configured.' }),
            registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
              description: 'Who may create an account: anyone, only with an invite link, or nobody (the operator creates accounts).',
            }),
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
      registration: accounts.registration,
      human_check: {
        register: accounts.humanCheckRequired('register'),
        promotion: accounts.humanCheckRequired('promotion'),
        idp: accounts.humanCheckRequired('idp'),
        web_login: accounts.humanCheckRequired('web-login'),
      },
    }),
  );

  app.get(
    '/human-check',
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
