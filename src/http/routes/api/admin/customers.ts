/**
 * `/api/admin/customers*` (operator bearer only; hidden from the public OpenAPI document): create and list customers,
 * one customer with its wallets and keys (the operator console), wallet adjustments and Unlimited plan grants.
 */
import { Type } from '@sinclair/typebox';
import { createdCustomerView, customerView } from '../../../../accounts/account-profile.js';
import { keyView } from '../../../../accounts/key-policy.js';
import { parsePolicy } from '../../../../accounts/principal.js';
import { checkIdempotencyKey } from '../../../../billing/idempotency.js';
import type { Clock } from '../../../../kernel/clock.js';
import { moneyJson } from '../../../../kernel/money.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { ManagedKeys } from '../../../../accounts/managed-keys.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';
import { walletJson } from '../../shared/wallet-json.js';
import { sendStoredResult } from '../../shared/stored-result.js';

const operator = { auth: 'operator', surface: 'account' } as const;
/** Bodies that move money or grant access refuse unknown fields: a misspelt optional field (`walet`) would
 * otherwise be ignored and its default used, e.g. crediting the token wallet instead of the cash wallet. */
const STRICT = { additionalProperties: false } as const;
const CustomerParams = Type.Object({ customer_id: Type.Integer({ minimum: 1 }) });
const CustomerDetailParams = Type.Object({ customer_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const CreateCustomerBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    vip: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ListCustomersQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
  after_id: Type.Optional(Type.Integer({ minimum: 0 })),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Only customers whose email contains this.' })),
});

const SPEND_WINDOW_MS = 30 * 24 * 3_600_000;

export interface AdminCustomerRouteDeps {
  customers: CustomerService;
  billing: Pick<BillingServices, 'walletSummary' | 'adjust' | 'unlimited' | 'customerMoney'>;
  managedKeys: Pick<ManagedKeys, 'listForCustomer'>;
  config: AppConfig;
  clock: Clock;
}

export async function adminCustomerRoutes(app: App, deps: AdminCustomerRouteDeps): Promise<void> {
  const { billing, customers, managedKeys, config, clock } = deps;

  app.post(
    '/customers',
    {
      config: operator,
      schema: { tags: ['admin'], summary: 'Create a customer; returns its System Token once', body: CreateCustomerBody },
    },
    async (request, reply) => reply.code(201).send(createdCustomerView(await customers.create(request.body), config)),
  );

  app.get(
    '/customers',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'List customers (paged by id, searchable by email) with token balance, cash balance and 30-day spend',
        querystring: ListCustomersQuery,
      },
    },
    async (request) => {
      const rows = await customers.list({ limit: request.query.limit, afterId: request.query.after_id, email: request.query.email });
      const money = await billing.customerMoney(
        rows.map((row) => Number(row.id)),
        clock.nowMs() - SPEND_WINDOW_MS,
      );
      const data = rows.map((row) => {
        const found = money.get(Number(row.id))!;
        return {
          ...customerView(row),
          status: row.status,
          vip: Number(row.vip) === 1,
          balance: moneyJson(found.balanceMicros),
          cash_balance: moneyJson(found.cashBalanceMicros),
          spent_30d: moneyJson(found.spentMicros),
        };
      });
      return { data, next_after_id: rows.length === request.query.limit ? rows[rows.length - 1]!.id : null };
    },
  );

  app.get(
    '/customers/:customer_id',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary:
          'One customer with its wallets and live keys: {customer, status, vip, wallet, keys:[{id, kind, role, name, prefix, last_four, policy, …}], signup (identity-provider sign-up: plan, amount, source, country, device fingerprint, mobile number; null otherwise)}',
        params: CustomerDetailParams,
      },
    },
    async (request) => {
      const customer = await customers.get(request.params.customer_id);
      const [summary, rows, signup] = await Promise.all([
        billing.walletSummary(customer.id),
        managedKeys.listForCustomer(customer.id),
        customers.signupAttribution(customer.id),
      ]);
      return {
        customer: customerView({ ...customer, created_at: Number(customer.created_at) }),
        status: customer.status,
        vip: Number(customer.vip) === 1,
        wallet: walletJson(summary),
        keys: rows.map((row) => ({ ...keyView(row, parsePolicy(row.policy_json)), role: row.role })),
        signup,
      };
    },
  );

  customerWalletRoutes(app, deps);
}

/** Changing a customer's money: a wallet adjustment and the Unlimited plan. */
function customerWalletRoutes(app: App, deps: AdminCustomerRouteDeps): void {
  const { billing, customers } = deps;

  app.post(
    '/customers/:customer_id/wallet/adjust',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Credit or correct a wallet (a new ledger transfer); requires Idempotency-Key',
        params: CustomerParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: Type.Object(
          {
            amount_micros: Type.Integer({ minimum: -1_000_000_000_000, maximum: 1_000_000_000_000, not: { const: 0 } }),
            reason: Type.String({ minLength: 1, maxLength: 500 }),
            wallet: Type.Union([Type.Literal('token'), Type.Literal('cash')], { default: 'token' }),
          },
          STRICT,
        ),
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
      return sendStoredResult(reply, result);
    },
  );

  app.put(
    '/customers/:customer_id/unlimited-plan',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Grant an Unlimited Coding plan to a customer',
        params: CustomerParams,
        body: Type.Object(
          { plan: Type.String({ minLength: 1 }), days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })) },
          STRICT,
        ),
      },
    },
    async (request) => {
      await customers.get(request.params.customer_id);
      const granted = await billing.unlimited.grant(request.params.customer_id, request.body.plan, request.body.days);
      return { plan: granted.planId, starts_at: new Date(granted.startsAt).toISOString(), ends_at: new Date(granted.endsAt).toISOString() };
    },
  );
}
