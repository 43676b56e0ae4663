/**
 * Customer accounts: registration and CLI login (public), `GET /api/v1/me`, the customer's own keys and the
 * username-token rotation. Bodies reject unknown fields, so they cannot set owner, balance, role or kind.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { createdCustomerView, cliConfiguration, describeAccount } from '../../accounts/account-profile.js';
import { ApiKeyService } from '../../accounts/api-key-service.js';
import { UserApiKeyCreateBody, UserApiKeyUpdateBody } from '../../accounts/key-policy.js';
import type { CustomerPrincipal } from '../../accounts/principal.js';
import { isSessionPrincipal } from '../../accounts/sessions.js';
import { AppError, validationError } from '../../kernel/errors.js';
import type { App } from '../types.js';
import type { Services } from '../../services.js';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
const Password = Type.String({ minLength: 8, maxLength: 256 });

const RegisterBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    humanCheckId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'From GET /api/v1/auth/human-check (required when configured).' })),
    humanCheckAnswer: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

const LoginBody = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    login: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Email or username.' })),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

const KeyIdParams = Type.Object({ key_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const account = { auth: 'api', surface: 'account' } as const;
const publicAccount = { auth: 'public', surface: 'account' } as const;

/** The calling customer; operators have no account of their own. */
export function customerOf(request: FastifyRequest): CustomerPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'customer') throw new AppError('FORBIDDEN', 'This route needs a customer key');
  return principal;
}

export async function accountRoutes(app: App, services: Services): Promise<void> {
  const { config, customers } = services;
  const knownModels = new Set([...config.models.map((model) => model.id), ...Object.keys(config.aliases)]);
  const knownRateLimitPlans = new Set(Object.keys(config.rateLimitPlans ?? {}));
  const apiKeys = new ApiKeyService(services.storage, services.keys, services.clock, {
    knownModels: () => knownModels,
    knownRateLimitPlans: () => knownRateLimitPlans,
  });

  app.post(
    '/api/v1/customer/register',
    { config: publicAccount, schema: { tags: ['accounts'], summary: 'Create an account; returns its System Token once', body: RegisterBody } },
    async (request, reply) => {
      const { humanCheckId, humanCheckAnswer, ...input } = request.body;
      if (services.accounts.humanCheckRequired('register')) await services.accounts.humanChecks.verify({ humanCheckId, humanCheckAnswer });
      const created = await customers.create(input);
      return reply.code(201).send(createdCustomerView(created, config));
    },
  );

  app.post(
    '/api/v1/auth/login',
    { config: publicAccount, schema: { tags: ['accounts'], summary: 'CLI login by email or username; issues a wallet-linked key', body: LoginBody } },
    async (request) => {
      const { email, username, login, password } = request.body;
      const given = [email, username, login].filter((value) => value !== undefined);
      if (given.length !== 1) {
        throw validationError([{ loc: ['body', 'email'], msg: 'Give exactly one of email, username or login', type: 'value_error' }]);
      }
      // Failures count per account and per address (429 with Retry-After over the limit), as for web login.
      const { lockout } = services.accounts;
      const accountKey = given[0]!.includes('@') ? given[0]!.trim().toLowerCase() : given[0]!.trim();
      await lockout.check('login', accountKey, request.ip);
      const issued = await customers.login(given[0]!, password).catch(async (error: unknown) => {
        if (error instanceof AppError && error.code === 'UNAUTHENTICATED') await lockout.fail('login', accountKey, request.ip);
        throw error;
      });
      await lockout.succeed('login', accountKey);
      return { customer_id: issued.customerId, api_key: issued.key, api_key_id: issued.keyId, ...cliConfiguration(config) };
    },
  );

  app.get(
    '/api/v1/me',
    {
      config: account,
      schema: {
        tags: ['accounts'],
        summary: 'Account, wallet and CLI configuration; with the dashboard profile (edge region and its base URL, names, show_name_dialog, two_factor_enabled, session)',
      },
    },
    async (request) => {
      const caller = customerOf(request);
      const [described, profile, twoFactor] = await Promise.all([
        describeAccount({ customers, wallets: services.billing, config, prices: () => services.gateway.listModels() }, caller),
        services.accounts.settings.profile(caller.customerId),
        services.accounts.webAuth.twoFactorEnabled(caller.customerId),
      ]);
      return { ...described, profile, two_factor_enabled: twoFactor, session: isSessionPrincipal(caller) };
    },
  );

  app.get(
    '/api/v1/me/api-keys',
    { config: account, schema: { tags: ['accounts'], summary: 'List the System Token, username token and User API Keys (never secrets)' } },
    async (request) => ({ data: await apiKeys.list(customerOf(request).customerId) }),
  );

  app.post(
    '/api/v1/me/api-keys',
    { config: account, schema: { tags: ['accounts'], summary: 'Create a User API Key; the secret is returned once', body: UserApiKeyCreateBody } },
    async (request, reply) => {
      const caller = customerOf(request);
      apiKeys.assertMayManageKeys(caller);
      const issued = await apiKeys.create(caller.customerId, request.body);
      return reply.code(201).send({ ...issued.view, key: issued.key });
    },
  );

  app.patch(
    '/api/v1/me/api-keys/:key_id',
    { config: account, schema: { tags: ['accounts'], summary: 'Change a User API Key policy', params: KeyIdParams, body: UserApiKeyUpdateBody } },
    async (request) => {
      const caller = customerOf(request);
      apiKeys.assertMayManageKeys(caller);
      return apiKeys.update(caller.customerId, request.params.key_id, request.body);
    },
  );

  app.delete(
    '/api/v1/me/api-keys/:key_id',
    { config: account, schema: { tags: ['accounts'], summary: 'Revoke one of your keys', params: KeyIdParams } },
    async (request) => {
      const caller = customerOf(request);
      apiKeys.assertMayManageKeys(caller);
      const revoked = await apiKeys.revoke(caller.customerId, request.params.key_id);
      await services.accounts.alerts.raise(caller.customerId, { cause: 'key_revoked', causeKey: `key:${request.params.key_id}`, keyId: request.params.key_id, details: { key_id: request.params.key_id } });
      return { ...revoked, revoked: true };
    },
  );

  app.post(
    '/api/v1/me/api-keys/:key_id/replace',
    { config: account, schema: { tags: ['accounts'], summary: 'Revoke a key and issue a new secret with the same policy', params: KeyIdParams } },
    async (request, reply) => {
      const caller = customerOf(request);
      apiKeys.assertMayManageKeys(caller);
      const issued = await apiKeys.replace(caller.customerId, request.params.key_id);
      await services.accounts.alerts.raise(caller.customerId, {
        cause: 'key_replaced',
        causeKey: `key:${request.params.key_id}`,
        keyId: request.params.key_id,
        details: { key_id: request.params.key_id, replaced_by: issued.view.id },
      });
      return reply.code(201).send({ ...issued.view, key: issued.key, replaces: request.params.key_id });
    },
  );

  app.post(
    '/api/v1/me/api-token/rotate',
    { config: account, schema: { tags: ['accounts'], summary: 'Rotate the username token (once per 24 hours)' } },
    async (request) => {
      const caller = customerOf(request);
      apiKeys.assertMayManageKeys(caller);
      const rotated = await apiKeys.rotateUsernameToken(caller.customerId);
      return { ...rotated.view, username_token: rotated.key, next_rotation_at: rotated.nextRotationAt };
    },
  );
}
