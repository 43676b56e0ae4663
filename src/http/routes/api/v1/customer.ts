/** `POST /api/v1/customer/register`: self-service registration (public); the System Token is returned once. */
import { Type } from '@sinclair/typebox';
import { createdCustomerView } from '../../../../accounts/account-profile.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { AccountServices } from '../../../../accounts/index.js';
import { refuseUninvited } from '../../../../accounts/invites.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { PromotionServices } from '../../../../promotions/index.js';
import type { App } from '../../../types.js';
import { clearReferralCookie, referralCodeFrom } from '../../shared/referral-cookie.js';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
const Password = Type.String({ minLength: 8, maxLength: 256 });

const RegisterBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    referralCode: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]{6,32}$',
        description:
          'The referral code the customer came with; absent: the one the share link /r/{code} kept (cookie). Unknown codes change nothing.',
      }),
    ),
    humanCheck: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'The solved ALTCHA challenge from GET /api/v1/auth/human-check (required by default; not with an invite).',
      }),
    ),
    invite: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The token of an invite link (`/login.html#invite=…`); required when accounts.registration is invite.',
      }),
    ),
  },
  { additionalProperties: false },
);

const publicAccount = { auth: 'public', surface: 'account' } as const;

export interface CustomerRouteDeps {
  accounts: Pick<
    AccountServices,
    'addressLimits' | 'emailVerification' | 'humanCheckRequired' | 'humanChecks' | 'invites' | 'registration'
  >;
  customers: Pick<CustomerService, 'create'>;
  config: AppConfig;
  /** Attributes the new account to the customer whose referral code it came with. */
  referrals?: Pick<PromotionServices, 'attributeReferral'>;
}

export async function customerRoutes(app: App, deps: CustomerRouteDeps): Promise<void> {
  const { config, customers } = deps;

  app.post(
    '/customer/register',
    {
      config: publicAccount,
      schema: {
        tags: ['accounts'],
        summary: 'Create an account; returns its System Token once and mails a link that verifies the email (needed for free credit)',
        description:
          'accounts.registration decides who may: open (anyone), invite (only with the invite token of the invited email; 403 without one, 422 for a bad one) or closed (403). A solved human check (humanCheck) is required by default without an invite; sign-ups per network (/24, /64) are limited per day (429). ' +
          'referralCode (or the sy_ref cookie left by /r/{code}) attributes the account to the referring customer.',
        body: RegisterBody,
      },
    },
    async (request, reply) => {
      const { humanCheck, referralCode, invite, ...input } = request.body;
      const { registration, invites } = deps.accounts;
      if (registration === 'closed' || invite === undefined) refuseUninvited(registration);
      if (invite === undefined) {
        if (deps.accounts.humanCheckRequired('register')) await deps.accounts.humanChecks.verify({ humanCheck });
        await deps.accounts.addressLimits.admit('signup', request.ip);
      }
      const created = await customers.create(
        input,
        invite === undefined ? undefined : (trx, customerId) => invites.redeem(trx, invite, input.email, customerId),
      );
      // The account works at once (it can pay and use what it paid for); free credit waits for this link.
      await deps.accounts.emailVerification.send(created.customer.id);
      const referral = referralCodeFrom(request, referralCode);
      if (referral !== undefined && deps.referrals) {
        await deps.referrals.attributeReferral(created.customer.id, referral);
        clearReferralCookie(reply, config.publicBaseUrl);
      }
      return reply.code(201).send({ ...createdCustomerView(created, config), email_verified: false });
    },
  );
}
