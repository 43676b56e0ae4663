/**
 * The account, `GET /api/v1/me`, and its settings (`api`, account surface: System Token, username token, login key or
 * dashboard session): authenticator-app 2FA, edge region, email, password, profile name, SSO links and key alerts.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { isSessionPrincipal } from '../../../../accounts/sessions.js';
import { describeAccount } from '../../../../accounts/account-profile.js';
import { AppError } from '../../../../kernel/errors.js';
import { customerOf } from '../../../caller.js';
import type { SensitiveAction } from '../../../../accounts/credential-rules.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { GatewayServices } from '../../../../gateway/index.js';
import type { App } from '../../../types.js';

const Code = Type.String({ pattern: '^[0-9]{6}$', description: 'A 6-digit authenticator-app code.' });
const AccountPassword = Type.String({ minLength: 1, maxLength: 256, description: 'The account password.' });
const EnableBody = Type.Object({ code: Code, password: AccountPassword }, { additionalProperties: false });
const DisableBody = Type.Object(
  { code: Type.Optional(Code), password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  { additionalProperties: false },
);
const EdgeRegionBody = Type.Object(
  { region: Type.String({ minLength: 1, maxLength: 64, description: 'A configured region id or name, e.g. london or chicago.' }) },
  { additionalProperties: false },
);
const EmailBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }), password: AccountPassword },
  { additionalProperties: false },
);
const PasswordBody = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 256 }), new_password: Type.String({ minLength: 8, maxLength: 256 }) },
  { additionalProperties: false },
);
const ProfileNameBody = Type.Object(
  { first_name: Type.String({ minLength: 1, maxLength: 100 }), surname: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
const DashboardSsoLinkBody = Type.Object(
  {
    returnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'A path of this site; default /dashboard.html.' })),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 300, description: 'Lifetime, at most 300 seconds (default 300).' })),
  },
  { additionalProperties: false },
);
const AlertParams = Type.Object({ event_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
const AlertQuery = Type.Object({ include_acknowledged: Type.Optional(Type.Boolean({ default: false })) });

const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;
/** A sensitive action of the account (accounts/credential-rules.ts decides who may). */
const sensitive = <A extends SensitiveAction>(action: A) => ({ ...customerAccount, sensitive: action }) as const;

export interface MeRouteDeps {
  accounts: Pick<AccountServices, 'alerts' | 'emailVerification' | 'lockout' | 'settings' | 'sso' | 'webAuth'>;
  customers: CustomerService;
  billing: BillingServices;
  gateway: Pick<GatewayServices, 'listModels'>;
  config: AppConfig;
}

export async function meRoutes(app: App, deps: MeRouteDeps): Promise<void> {
  const { accounts, config, customers } = deps;
  /** Every change of a credential lands in the account's alerts (each occurrence its own alert). */
  const raiseChange = (customerId: number, cause: string, details: Record<string, unknown>, causeKey?: string) =>
    accounts.alerts.raise(customerId, { cause, causeKey: causeKey ?? `at:${Date.now()}:${randomUUID()}`, details });

  app.get(
    '/api/v1/me',
    {
      config: customerAccount,
      schema: {
        tags: ['accounts'],
        summary:
          'Account, wallet and CLI configuration; with the dashboard profile (edge region and its base URL, names, show_name_dialog, two_factor_enabled, session)',
      },
    },
    async (request) => {
      const caller = customerOf(request);
      const [described, profile, twoFactor, verified] = await Promise.all([
        describeAccount({ customers, wallets: deps.billing, config, prices: () => deps.gateway.listModels() }, caller),
        deps.accounts.settings.profile(caller.customerId),
        deps.accounts.webAuth.twoFactorEnabled(caller.customerId),
        deps.accounts.emailVerification.isVerified(caller.customerId),
      ]);
      return { ...described, profile, two_factor_enabled: twoFactor, email_verified: verified, session: isSessionPrincipal(caller) };
    },
  );

  app.post(
    '/api/v1/me/2fa/setup',
    {
      config: sensitive('enrol-2fa'),
      schema: { tags: ['account'], summary: 'Starts authenticator-app 2FA: {secret, otpauth_uri, enabled:false}; active after /enable' },
    },
    async (request) => ({ ...(await accounts.webAuth.setupTwoFactor(customerOf(request).customerId)), enabled: false }),
  );

  app.post(
    '/api/v1/me/2fa/enable',
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
    '/api/v1/me/2fa/disable',
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

  app.post(
    '/api/v1/me/edge-region',
    {
      config: customerAccount,
      schema: { tags: ['account'], summary: 'Sets the preferred API region (one of the configured regions)', body: EdgeRegionBody },
    },
    async (request) => accounts.settings.setEdgeRegion(customerOf(request).customerId, request.body.region),
  );

  app.post(
    '/api/v1/me/email',
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
    '/api/v1/me/email/verification',
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

  app.post(
    '/api/v1/me/password',
    {
      config: sensitive('change-password'),
      schema: { tags: ['account'], summary: 'Changes the dashboard password; every other dashboard session ends', body: PasswordBody },
    },
    async (request) => {
      const caller = customerOf(request);
      const keep = isSessionPrincipal(caller) ? caller.session.id : undefined;
      await accounts.webAuth.changePassword(caller.customerId, request.body.current_password, request.body.new_password, keep);
      await raiseChange(caller.customerId, 'password_changed', {});
      return { password_changed: true };
    },
  );

  app.post(
    '/api/v1/me/profile-name',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Saves first name and surname', body: ProfileNameBody } },
    async (request) => accounts.settings.setProfileName(customerOf(request).customerId, request.body.first_name, request.body.surname),
  );

  app.post(
    '/api/v1/me/profile-name/dismiss',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Records that the name dialog was skipped' } },
    async (request) => accounts.settings.dismissProfileName(customerOf(request).customerId),
  );

  app.post(
    '/api/v1/me/sso-link',
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

  app.get(
    '/api/v1/me/api-key-alerts',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Key alerts (spending limit 80 %/reached, expiring/expired, replaced/revoked, new network), newest first',
        querystring: AlertQuery,
      },
    },
    async (request) => {
      const data = await accounts.alerts.list(customerOf(request).customerId, { includeAcknowledged: request.query.include_acknowledged });
      return { data, unacknowledged_count: data.filter((alert) => !alert.acknowledged).length };
    },
  );

  app.post(
    '/api/v1/me/api-key-alerts/:event_id/acknowledge',
    {
      config: customerAccount,
      schema: { tags: ['account'], summary: 'Acknowledges one of your alerts (others: 404)', params: AlertParams },
    },
    async (request) => accounts.alerts.acknowledge(customerOf(request).customerId, request.params.event_id),
  );
}
