/**
 * Answers of the operator routes (`/api/admin/*`, documented in `/api/admin/openapi.json` for operators only).
 * Each names the fields the console reads; nested records the console only shows stay open objects.
 */
import { Type } from '@sinclair/typebox';
import type { ResponseCatalog } from './catalog.js';
import { Media, Money, Nullable, Timestamp, Wallet } from './shapes.js';

const CustomerView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  username: Type.String(),
  name: Nullable(Type.String()),
  created_at: Timestamp,
});

const KeyView = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  system: Type.Boolean(),
  name: Nullable(Type.String()),
  prefix: Type.String(),
  last_four: Type.String(),
  policy: Type.Object({}),
  created_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
});

const ManagedKey = Type.Composite([KeyView, Type.Object({ role: Type.String(), customer_id: Nullable(Type.Integer()) })]);

const ModelPrices = Type.Object({
  model: Type.String(),
  rate_card: Type.String(),
  label: Type.String(),
  note: Nullable(Type.String()),
  input_micros_per_million: Type.Integer(),
  output_micros_per_million: Type.Integer(),
});

export const adminResponses: ResponseCatalog = {
  'POST /api/admin/customers': {
    201: Type.Object(
      {
        customer: CustomerView,
        api_key: Type.String(),
        api_key_id: Type.Integer(),
        username_token: Type.String(),
        username_token_id: Type.Integer(),
      },
      { description: 'The new customer and its secrets, shown this once' },
    ),
  },
  'GET /api/admin/customers': {
    200: Type.Object({
      data: Type.Array(
        Type.Composite([
          CustomerView,
          Type.Object({ status: Type.String(), vip: Type.Boolean(), balance: Money, cash_balance: Money, spent_30d: Money }),
        ]),
      ),
      next_after_id: Nullable(Type.Integer()),
    }),
  },
  'GET /api/admin/customers/:customer_id': {
    200: Type.Object({
      customer: CustomerView,
      status: Type.String(),
      vip: Type.Boolean(),
      wallet: Wallet,
      keys: Type.Array(Type.Composite([KeyView, Type.Object({ role: Type.String() })])),
      signup: Nullable(Type.Object({})),
    }),
  },
  'POST /api/admin/customers/:customer_id/wallet/adjust': {
    200: Type.Object({
      transfer_id: Type.String(),
      customer_id: Type.Integer(),
      wallet: Type.Union([Type.Literal('token'), Type.Literal('cash')]),
      amount: Money,
      reason: Type.String(),
      balance: Money,
      available: Money,
    }),
  },
  'PUT /api/admin/customers/:customer_id/unlimited-plan': {
    200: Type.Object({ plan: Type.String(), starts_at: Timestamp, ends_at: Timestamp }),
  },
  'GET /api/admin/customers/:customer_id/activity.csv': { 200: Media('text/csv', "The customer's filtered activity, one entry a row") },
  'POST /api/admin/keys': {
    201: Type.Composite([ManagedKey, Type.Object({ key: Type.String({ description: 'The secret, shown this once' }) })]),
  },
  'DELETE /api/admin/keys/:key_id': { 200: Type.Composite([ManagedKey, Type.Object({ revoked: Type.Literal(true) })]) },
  'GET /api/admin/rate-cards': {
    200: Type.Object({ cards: Type.Array(Type.Object({ name: Type.String() })), active: Type.Array(ModelPrices) }),
  },
  'PUT /api/admin/rate-cards/active': { 200: ModelPrices },
  'POST /api/admin/billing/crypto-orders/:order_id/refund': {
    200: Type.Object({ order_id: Type.String(), payouts: Type.Array(Type.Object({})) }),
  },
  'GET /api/admin/billing/invariants': {
    200: Type.Object({
      ok: Type.Boolean(),
      mismatchedAccounts: Type.Array(Type.Object({ code: Type.String() })),
      unbalancedTransfers: Type.Array(Type.String()),
      badHolds: Type.Array(Type.Object({ code: Type.String() })),
      checked_at: Timestamp,
    }),
  },
  'GET /api/admin/usage/export': {
    200: Type.String({
      description: 'JSON lines (application/x-ndjson) or CSV (`format=csv`); the next page in `x-next-cursor`',
      content: {
        'application/x-ndjson': { schema: { type: 'string', description: 'One settled record a line' } },
        'text/csv': { schema: { type: 'string', description: 'One settled record a row, with a header row' } },
      },
    }),
  },
  'GET /api/admin/session': {
    200: Type.Object({
      operator: Type.Literal(true),
      source: Nullable(Type.Union([Type.Literal('static'), Type.Literal('managed')])),
      key_id: Nullable(Type.Integer()),
      console_session: Type.Boolean(),
    }),
  },
  'POST /api/admin/session/end': { 200: Type.Object({ signed_out: Type.Boolean() }) },
  'POST /api/admin/messages': {
    201: Type.Object({ id: Type.Integer(), created_at: Timestamp, customer_id: Nullable(Type.Integer()), broadcast: Type.Boolean() }),
  },
  'GET /api/admin/jobs': { 200: Type.Object({ data: Type.Array(Type.Object({})) }) },
  'GET /api/admin/desktop/bug-reports': {
    200: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.Integer(),
          customer_id: Type.Integer(),
          email: Type.String(),
          text: Type.String(),
          app_version: Type.String(),
          os: Type.String(),
          log_excerpt: Nullable(Type.String()),
          created_at: Timestamp,
        }),
      ),
    }),
  },
  'GET /api/admin/desktop/presence': {
    200: Type.Object({ ttl_seconds: Type.Integer(), online_count: Type.Integer(), data: Type.Array(Type.Object({})) }),
  },
  'POST /api/admin/push': {
    201: Type.Object({
      id: Type.Integer(),
      message_key: Type.String(),
      customer_id: Nullable(Type.Integer()),
      broadcast: Type.Boolean(),
      level: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
      created_at: Timestamp,
      expires_at: Nullable(Timestamp),
    }),
  },
  'PUT /api/admin/aliases/:alias': { 200: Type.Object({ alias: Type.String(), model: Type.String(), updated_at_ms: Type.Integer() }) },
  'GET /api/admin/aliases': {
    200: Type.Object({ aliases: Type.Record(Type.String(), Type.String(), { description: 'Alias → the model it points at' }) }),
  },
  'GET /api/admin/invites': { 200: Type.Object({ registration: Type.String(), data: Type.Array(Type.Object({})) }) },
  'GET /api/admin/outbox': {
    200: Type.Object({
      smtp: Type.Boolean(),
      data: Type.Array(Type.Object({ id: Type.Integer() })),
      next_before_id: Nullable(Type.Integer()),
    }),
  },
  'GET /api/admin/providers': {
    200: Type.Object({
      providers: Type.Array(Type.Object({ id: Type.String(), models: Type.Array(Type.String()), health: Type.Unknown() })),
      models: Type.Array(Type.Object({ id: Type.String(), aliases: Type.Array(Type.String()) })),
    }),
  },
};
