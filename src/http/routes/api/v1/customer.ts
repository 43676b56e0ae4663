/** `POST /api/v1/customer/register`: self-service registration (public); the System Token is returned once. */
import { Type } from '@sinclair/typebox';
import { createdCustomerView } from '../../../../accounts/account-profile.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
const Password = Type.String({ minLength: 8, maxLength: 256 });

const RegisterBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    humanCheck: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'The solved ALTCHA challenge from GET /api/v1/auth/human-check (required by default).',
      }),
    ),
  },
  { additionalProperties: false },
);

const publicAccount = { auth: 'public', surface: 'account' } as const;

export interface CustomerRouteDeps {
  accounts: Pick<AccountServices, 'addressLimits' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks'>;
  customers: Pick<CustomerService, 'create'>;
  config: AppConfig;
}

export async function customerRoutes(app: App, deps: CustomerRouteDeps): Promise<void> {
  const { config, customers } = deps;

  app.post(
    '/api/v1/customer/register',
    {
      config: publicAccount,
      schema: {
        tags: ['accounts'],
        summary: 'Create an account; returns its System Token once and mails a link that verifies the email (needed for free credit)',
        description: 'A solved human check (humanCheck) is required by default; sign-ups per network (/24, /64) are limited per day (429).',
        body: RegisterBody,
      },
    },
    async (request, reply) => {
      const { humanCheck, ...input } = request.body;
      if (deps.accounts.humanCheckRequired('register')) await deps.accounts.humanChecks.verify({ humanCheck });
      await deps.accounts.addressLimits.admit('signup', request.ip);
      const created = await customers.create(input);
      // The account works at once (it can pay and use what it paid for); free credit waits for this link.
      await deps.accounts.emailVerification.send(created.customer.id);
      return reply.code(201).send({ ...createdCustomerView(created, config), email_verified: false });
    },
  );
}
