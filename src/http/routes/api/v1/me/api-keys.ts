/**
 * The customer's own keys, `/api/v1/me/api-keys*` (list, create, change, revoke, replace, per-key usage and health)
 * and the username-token rotation `/api/v1/me/api-token/rotate`. Bodies reject unknown fields, so they cannot set
 * owner, balance, role or kind.
 */
import { Type } from '@sinclair/typebox';
import { UserApiKeyCreateBody, UserApiKeyUpdateBody } from '../../../../../accounts/key-policy.js';
import { customerOf } from '../../../../caller.js';
import type { ApiKeyService } from '../../../../../accounts/api-key-service.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AccountReports } from '../../../../../billing/account-reports.js';
import type { App } from '../../../../types.js';

const KeyParams = Type.Object({ key_id: Type.Integer({ minimum: 1 }) });
const KeyIdParams = Type.Object({ key_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;
/** Minting or changing keys: the credential table (accounts/credential-rules.ts) names who may. */
const keyAction = (action: 'create-key' | 'change-key' | 'revoke-key' | 'replace-key' | 'rotate-username-token') =>
  ({ auth: 'api', surface: 'account', caller: 'customer', sensitive: action }) as const;
const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

export interface ApiKeyRouteDeps {
  apiKeys: ApiKeyService;
  accounts: Pick<AccountServices, 'alerts'>;
  accountReports: Pick<AccountReports, 'keyUsage' | 'keyHealth'>;
}

export async function apiKeyRoutes(app: App, deps: ApiKeyRouteDeps): Promise<void> {
  const { apiKeys } = deps;
  const { alerts } = deps.accounts;

  app.get(
    '/api-keys',
    {
      config: customerAccount,
      schema: { tags: ['accounts'], summary: 'List the System Token, username token and User API Keys (never secrets)' },
    },
    async (request) => ({ data: await apiKeys.list(customerOf(request).customerId) }),
  );

  app.post(
    '/api-keys',
    {
      config: keyAction('create-key'),
      schema: { tags: ['accounts'], summary: 'Create a User API Key; the secret is returned once', body: UserApiKeyCreateBody },
    },
    async (request, reply) => {
      const caller = customerOf(request);
      const issued = await apiKeys.create(caller.customerId, request.body);
      await alerts.raise(caller.customerId, {
        cause: 'key_created',
        causeKey: `key:${issued.view.id}`,
        keyId: issued.view.id,
        details: { key_id: issued.view.id },
      });
      return reply.code(201).send({ ...issued.view, key: issued.key });
    },
  );

  app.patch(
    '/api-keys/:key_id',
    {
      config: keyAction('change-key'),
      schema: { tags: ['accounts'], summary: 'Change a User API Key policy', params: KeyIdParams, body: UserApiKeyUpdateBody },
    },
    async (request) => {
      const caller = customerOf(request);
      const updated = await apiKeys.update(caller.customerId, request.params.key_id, request.body);
      await alerts.raise(caller.customerId, {
        cause: 'key_changed',
        causeKey: `key:${request.params.key_id}:${Date.now()}`,
        keyId: request.params.key_id,
        details: { key_id: request.params.key_id },
      });
      return updated;
    },
  );

  app.delete(
    '/api-keys/:key_id',
    { config: keyAction('revoke-key'), schema: { tags: ['accounts'], summary: 'Revoke one of your keys', params: KeyIdParams } },
    async (request) => {
      const caller = customerOf(request);
      const revoked = await apiKeys.revoke(caller.customerId, request.params.key_id);
      await alerts.raise(caller.customerId, {
        cause: 'key_revoked',
        causeKey: `key:${request.params.key_id}`,
        keyId: request.params.key_id,
        details: { key_id: request.params.key_id },
      });
      return { ...revoked, revoked: true };
    },
  );

  keyReplacementRoutes(app, deps);
  keyReportRoutes(app, deps);
}

/** Replacing a key with a new secret and rotating the username token; each change raises an alert. */
function keyReplacementRoutes(app: App, deps: ApiKeyRouteDeps): void {
  const { apiKeys } = deps;
  const { alerts } = deps.accounts;

  app.post(
    '/api-keys/:key_id/replace',
    {
      config: keyAction('replace-key'),
      schema: { tags: ['accounts'], summary: 'Revoke a key and issue a new secret with the same policy', params: KeyIdParams },
    },
    async (request, reply) => {
      const caller = customerOf(request);
      const issued = await apiKeys.replace(caller.customerId, request.params.key_id);
      await alerts.raise(caller.customerId, {
        cause: 'key_replaced',
        causeKey: `key:${request.params.key_id}`,
        keyId: request.params.key_id,
        details: { key_id: request.params.key_id, replaced_by: issued.view.id },
      });
      return reply.code(201).send({ ...issued.view, key: issued.key, replaces: request.params.key_id });
    },
  );

  app.post(
    '/api-token/rotate',
    {
      config: keyAction('rotate-username-token'),
      schema: { tags: ['accounts'], summary: 'Rotate the username token (once per 24 hours)' },
    },
    async (request) => {
      const caller = customerOf(request);
      const rotated = await apiKeys.rotateUsernameToken(caller.customerId);
      await alerts.raise(caller.customerId, {
        cause: 'username_token_rotated',
        causeKey: `key:${rotated.view.id}`,
        keyId: rotated.view.id,
        details: { key_id: rotated.view.id },
      });
      return { ...rotated.view, username_token: rotated.key, next_rotation_at: rotated.nextRotationAt };
    },
  );
}

/** What one key spent and how its calls fared. */
function keyReportRoutes(app: App, deps: ApiKeyRouteDeps): void {
  const { accountReports } = deps;

  app.get(
    '/api-keys/:key_id/usage',
    {
      config: walletOwner,
      schema: {
        tags: ['keys'],
        summary: 'Usage of one of your API keys per day',
        params: KeyParams,
        querystring: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }) }),
      },
    },
    async (request) => {
      const principal = customerOf(request);
      return accountReports.keyUsage(principal.customerId, request.params.key_id, request.query.days);
    },
  );

  app.get(
    '/api-keys/:key_id/health',
    {
      config: walletOwner,
      schema: {
        tags: ['keys'],
        summary: 'Non-billable health check of a key: key, wallet and destination reachability',
        params: KeyParams,
        querystring: Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })) }),
      },
    },
    async (request) => accountReports.keyHealth(customerOf(request).customerId, request.params.key_id, request.query.model),
  );
}
