/** Wallet, billing, Unlimited plans, VIP, marketplace registration and the operator's money routes. */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { bearerFrom } from '../../accounts/identity.js';
import type { CustomerPrincipal } from '../../accounts/principal.js';
import { checkIdempotencyKey } from '../../billing/idempotency.js';
import { healthReport } from '../../billing/health.js';
import { probeProvider } from '../../gateway/providers/probe.js';
import { keyUsage, payments, tokenUsage } from '../../billing/reports.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { moneyJson } from '../../kernel/money.js';
import type { App } from '../types.js';
import type { Services } from '../../services.js';

const account = { auth: 'api', surface: 'account' } as const;
const operator = { auth: 'operator', surface: 'account' } as const;
const KeyParams = Type.Object({ key_id: Type.Integer({ minimum: 1 }) });
const CustomerParams = Type.Object({ customer_id: Type.Integer({ minimum: 1 }) });
/** Bodies that move money or grant access refuse unknown fields: a misspelt optional field (`walet`) would
 * otherwise be ignored and its default used, e.g. crediting the token wallet instead of the cash wallet. */
const STRICT = { additionalProperties: false } as const;

function customerOf(request: FastifyRequest): CustomerPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'customer') throw notFound('Wallet');
  return principal;
}

export function walletJson(summary: Awaited<ReturnType<Services['billing']['walletSummary']>>) {
  return {
    balance: moneyJson(summary.balanceMicros),
    holds: moneyJson(summary.holdsMicros),
    available: moneyJson(summary.availableMicros),
    cash_balance: moneyJson(summary.cashBalanceMicros),
    plan: summary.plan,
    plan_ends_at: summary.planEndsAt === null ? null : new Date(summary.planEndsAt).toISOString(),
    currency: 'USD',
  };
}

export async function billingRoutes(app: App, services: Services): Promise<void> {
  walletRoutes(app, services);
  keyUsageRoutes(app, services);
  planRoutes(app, services);
  operatorRoutes(app, services);
}

/** Balance, payments, token usage and currency estimates of the caller's wallet. */
function walletRoutes(app: App, services: Services): void {
  const { billing, config, storage, clock } = services;

  app.get('/api/v1/wallet/status', { config: account, schema: { tags: ['wallet'], summary: 'Balance, holds, available credit and plan' } }, async (request) =>
    walletJson(await billing.walletSummary(customerOf(request).customerId)),
  );

  app.get(
    '/api/v1/wallet/payments',
    {
      config: account,
      schema: {
        tags: ['wallet'],
        summary: 'Credits and corrections of the wallets (payments), and card, crypto, cash and top-up purchases with their states (purchases), newest first',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }) }),
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      return { payments: await payments(storage.db, customerId, request.query.limit), purchases: await services.payments.list(customerId, request.query.limit) };
    },
  );

  app.get(
    '/api/v1/billing/token-usage',
    {
      config: account,
      schema: {
        tags: ['wallet'],
        summary: 'Token transactions (billed calls) and daily spend',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }), days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }) }),
      },
    },
    async (request) => tokenUsage(storage.db, customerOf(request).customerId, clock.nowMs(), request.query),
  );

  app.get('/api/v1/billing/currency-estimates', { config: account, schema: { tags: ['wallet'], summary: 'Local-currency estimates of the wallet (checkout stays USD)' } }, async (request) => {
    const summary = await billing.walletSummary(customerOf(request).customerId);
    const { rates, asOf } = config.currencyEstimates;
    return {
      estimate: true,
      checkout_currency: 'USD',
      note: 'Local-currency values are estimates only; checkout and billing are in USD.',
      as_of: asOf ?? null,
      available: moneyJson(summary.availableMicros),
      estimates: Object.entries(rates).map(([currency, perUsd]) => ({
        currency,
        per_usd: perUsd,
        available_estimate: Number(((summary.availableMicros / 1_000_000) * perUsd).toFixed(2)),
      })),
    };
  });

}

/** Per-key usage and the non-billable health checks. */
function keyUsageRoutes(app: App, services: Services): void {
  const { billing, config, storage, clock, keys } = services;

  app.get(
    '/api/v1/me/api-keys/:key_id/usage',
    {
      config: account,
      schema: { tags: ['keys'], summary: 'Usage of one of your API keys per day', params: KeyParams, querystring: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }) }) },
    },
    async (request) => {
      const principal = customerOf(request);
      const key = await keys.findForCustomer(storage.db, principal.customerId, request.params.key_id);
      if (!key) throw notFound('API key');
      return keyUsage(storage.db, principal.customerId, key.id, clock.nowMs(), request.query.days);
    },
  );

  const health = async (principal: CustomerPrincipal, keyId: number, model: string | undefined) => {
    const key = await keys.findForCustomer(storage.db, principal.customerId, keyId);
    if (!key) throw notFound('API key');
    const summary = await billing.walletSummary(principal.customerId);
    const timeoutMs = config.billing.healthProbeTimeoutMs;
    return healthReport(config, { key, nowMs: clock.nowMs(), wallet: summary, model, probe: (modelId) => probeProvider(config, modelId, timeoutMs) });
  };

  app.get(
    '/api/v1/me/api-keys/:key_id/health',
    {
      config: account,
      schema: { tags: ['keys'], summary: 'Non-billable health check of a key: key, wallet and destination reachability', params: KeyParams, querystring: Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })) }) },
    },
    async (request) => health(customerOf(request), request.params.key_id, request.query.model),
  );

  app.post(
    '/api/v1/setup/health-check',
    {
      config: account,
      schema: { tags: ['keys'], summary: 'Non-billable readiness check of the calling key', body: Type.Union([Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })) }), Type.Null()]) },
    },
    async (request) => {
      const principal = customerOf(request);
      return health(principal, principal.keyId, request.body?.model);
    },
  );

}

/** VIP access, Unlimited Coding plans and marketplace registration. */
function planRoutes(app: App, services: Services): void {
  const { billing, config } = services;

  app.get('/api/v1/vip', { config: { auth: 'public' }, schema: { tags: ['wallet'], summary: 'VIP priority server access of the caller' } }, async (request) => {
    const token = bearerFrom(request.headers, false);
    const principal = token === undefined ? null : await services.identity.resolve(token);
    return {
      vip: principal === null ? null : principal.kind === 'operator' || principal.vip,
      servers: config.vip.hosts,
      models: config.vip.models,
      description: config.vip.description,
    };
  });

  app.get('/api/v1/unlimited-coding/plans', { config: account, schema: { tags: ['wallet'], summary: 'Unlimited Coding plans' } }, async (request) => {
    const active = request.principal?.kind === 'customer' ? await billing.unlimited.active(request.principal.customerId) : null;
    return {
      plans: config.unlimitedPlans.map((plan) => ({
        id: plan.id,
        name: plan.name,
        description: plan.description ?? null,
        price: moneyJson(plan.priceMicros),
        duration_days: plan.durationDays,
        models: plan.models ?? null,
        surfaces: plan.surfaces ?? ['gateway', 'projects'],
        fair_use: { requests_per_hour: plan.fairUse.requestsPerHour ?? null, tokens_per_day: plan.fairUse.tokensPerDay ?? null },
        active: active?.plan.id === plan.id,
      })),
      active: active ? { plan: active.plan.id, ends_at: new Date(active.endsAt).toISOString() } : null,
    };
  });

  app.post(
    '/api/v1/marketplace/register',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['accounts'],
        summary: 'Create a marketplace buyer account with its token-wallet credit (licence usable once)',
        body: Type.Object({
          email: Type.String({ format: 'email', maxLength: 254 }),
          license_key: Type.String({ minLength: 4, maxLength: 200 }),
          password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        }, STRICT),
      },
    },
    async (request, reply) => {
      const { created, creditMicros } = await billing.marketplace.register({
        email: request.body.email,
        licenseKey: request.body.license_key,
        password: request.body.password,
        name: request.body.name ?? null,
      });
      return reply.code(201).send({
        customer_id: created.customer.id,
        email: created.customer.email,
        username: created.customer.username,
        system_token: created.systemToken.key,
        credit: moneyJson(creditMicros),
        note: 'The System Token is shown once; store it now.',
      });
    },
  );

}

/** Operator money routes: adjustments, rate-card switches, plan grants and the invariant check. */
function operatorRoutes(app: App, services: Services): void {
  const { billing, config, clock } = services;

  app.post(
    '/api/admin/customers/:customer_id/wallet/adjust',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Credit or correct a wallet (a new ledger transfer); requires Idempotency-Key',
        params: CustomerParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: Type.Object({
          amount_micros: Type.Integer({ minimum: -1_000_000_000_000, maximum: 1_000_000_000_000, not: { const: 0 } }),
          reason: Type.String({ minLength: 1, maxLength: 500 }),
          wallet: Type.Union([Type.Literal('token'), Type.Literal('cash')], { default: 'token' }),
        }, STRICT),
      },
    },
    async (request, reply) => {
      const idempotencyKey = checkIdempotencyKey(request.headers['idempotency-key']);
      const result = await billing.adjust({
        customerId: request.params.customer_id,
        amountMicros: request.body.amount_micros,
        reason: request.body.reason,
        wallet: request.body.wallet,
        idempotencyKey,
      });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    },
  );

  app.get('/api/admin/rate-cards', { config: operator, schema: { tags: ['admin'], summary: 'Rate cards and the card in force per model and alias' } }, async () => {
    await billing.rateCards.refresh(true);
    return {
      cards: Object.entries(config.rateCards).map(([name]) => billing.rateCards.card(name)),
      active: billing.rateCards.list(),
    };
  });

  app.put(
    '/api/admin/rate-cards/active',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Switch the rate card in force for a model or alias (new holds use it at once)',
        body: Type.Object({ target: Type.String({ minLength: 1 }), card: Type.String({ minLength: 1 }) }, STRICT),
      },
    },
    async (request) => {
      if (!(request.body.card in config.rateCards)) {
        throw new AppError('VALIDATION_FAILED', `Unknown rate card ${request.body.card}`, {
          issues: [{ loc: ['body', 'card'], msg: `Unknown rate card ${request.body.card}`, type: 'value_error' }],
        });
      }
      return billing.rateCards.switchCard(request.body.target, request.body.card);
    },
  );

  app.put(
    '/api/admin/customers/:customer_id/unlimited-plan',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Grant an Unlimited Coding plan to a customer',
        params: CustomerParams,
        body: Type.Object({ plan: Type.String({ minLength: 1 }), days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })) }, STRICT),
      },
    },
    async (request) => {
      await services.customers.get(request.params.customer_id);
      const granted = await billing.unlimited.grant(request.params.customer_id, request.body.plan, request.body.days);
      return { plan: granted.planId, starts_at: new Date(granted.startsAt).toISOString(), ends_at: new Date(granted.endsAt).toISOString() };
    },
  );

  app.get('/api/admin/billing/invariants', { config: operator, schema: { tags: ['admin'], summary: 'Ledger invariants: balances equal entries, transfers balanced, holds consistent' } }, async () => {
    const check = await billing.checkLedger();
    const ok = check.mismatchedAccounts.length === 0 && check.unbalancedTransfers.length === 0 && check.badHolds.length === 0;
    return { ok, ...check, checked_at: new Date(clock.nowMs()).toISOString() };
  });
}
