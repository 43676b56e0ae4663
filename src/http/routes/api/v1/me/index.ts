/**
 * The account, `GET /api/v1/me`, and its settings under `/api/v1/me/…` (`api`, account surface: System Token,
 * username token, login key or dashboard session): edge region and profile name here; 2FA, email, password and SSO
 * links, key alerts and keys in the files beside this one.
 */
import { Type } from '@sinclair/typebox';
import { isSessionPrincipal } from '../../../../../accounts/sessions.js';
import { describeAccount } from '../../../../../accounts/account-profile.js';
import { dashboardFeatures } from '../../../../../accounts/dashboard-features.js';
import { customerOf } from '../../../../caller.js';
import type { CustomerService } from '../../../../../accounts/customer-service.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { BillingServices } from '../../../../../billing/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { GatewayServices } from '../../../../../gateway/index.js';
import type { App } from '../../../../types.js';
import { apiKeyAlertRoutes } from './api-key-alerts.js';
import { customerAccount } from './credential-changes.js';
import { emailRoutes } from './email.js';
import { passwordRoutes } from './password.js';
import { twoFactorRoutes } from './two-factor.js';

const EdgeRegionBody = Type.Object(
  { region: Type.String({ minLength: 1, maxLength: 64, description: 'A configured region id or name, e.g. london or chicago.' }) },
  { additionalProperties: false },
);
const ProfileNameBody = Type.Object(
  { first_name: Type.String({ minLength: 1, maxLength: 100 }), surname: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export interface MeRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'emailVerification' | 'lockout' | 'settings' | 'sso' | 'webAuth'>;
  customers: CustomerService;
  billing: BillingServices;
  gateway: Pick<GatewayServices, 'listModels'>;
  config: AppConfig;
}

export async function meRoutes(app: App, deps: MeRouteDeps): Promise<void> {
  const { accounts, config, customers } = deps;

  app.get(
    '',
    {
      config: customerAccount,
      schema: {
        tags: ['accounts'],
        summary:
          'Account, wallet and CLI configuration; with the dashboard profile (edge region and its base URL, names, show_name_dialog, two_factor_enabled, session) and the features this service offers (payment methods, promotions, the operator contact)',
      },
    },
    async (request) => {
      const caller = customerOf(request);
      const [described, profile, twoFactor, verified] = await Promise.all([
        describeAccount(
          {
            customers,
            wallets: deps.billing,
            config,
            prices: () => deps.gateway.listModels(),
            edgeBase: (customerId) => deps.accounts.settings.edgeBaseUrl(customerId),
          },
          caller,
        ),
        deps.accounts.settings.profile(caller.customerId),
        deps.accounts.webAuth.twoFactorEnabled(caller.customerId),
        deps.accounts.emailVerification.isVerified(caller.customerId),
      ]);
      return {
        ...described,
        profile,
        two_factor_enabled: twoFactor,
        email_verified: verified,
        session: isSessionPrincipal(caller),
        features: dashboardFeatures(config),
      };
    },
  );

  app.post(
    '/edge-region',
    {
      config: customerAccount,
      schema: { tags: ['account'], summary: 'Sets the preferred API region (one of the configured regions)', body: EdgeRegionBody },
    },
    async (request) => accounts.settings.setEdgeRegion(customerOf(request).customerId, request.body.region),
  );

  app.post(
    '/profile-name',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Saves first name and surname', body: ProfileNameBody } },
    async (request) => accounts.settings.setProfileName(customerOf(request).customerId, request.body.first_name, request.body.surname),
  );

  app.post(
    '/profile-name/dismiss',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Records that the name dialog was skipped' } },
    async (request) => accounts.settings.dismissProfileName(customerOf(request).customerId),
  );

  twoFactorRoutes(app, deps);
  emailRoutes(app, deps);
  passwordRoutes(app, deps);
  apiKeyAlertRoutes(app, deps);
}
