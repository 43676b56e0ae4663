/**
 * The account's answers: sign-in and sessions (`/api/v1/auth`), registration (`/api/v1/customer`), the account
 * and its keys and settings (`/api/v1/me`), the inbox (`/api/v1/messages`), notification preferences
 * (`/api/v1/customer-engagement`), the wallet and its purchases (`/api/v1/wallet`, `/api/v1/purchase-preferences`,
 * `/api/v1/billing`, `/api/v1/activity.csv`), the key readiness check (`/api/v1/setup`) and the regions
 * (`/api/v1/status`).
 */
import { Type } from '@sinclair/typebox';
import type { ResponseCatalog } from './catalog.js';
import { Literals, Media, Money, Nullable, Payment, Redirect, Timestamp, Wallet } from './shapes.js';

// ---- Shapes used by several answers ------------------------------------------------------------------------

/** The base URLs a client calls (the chosen edge region's when there is one) and the default model. */
const CliConfiguration = {
  base_url: Type.String({ description: 'The model API (OpenAI and Anthropic compatible).' }),
  api_base_url: Type.String({ description: 'This service API.' }),
  default_model: Type.String(),
};

const CustomerJson = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  username: Type.String(),
  name: Nullable(Type.String()),
  created_at: Timestamp,
});

const KeyKindLabel = Literals('system_token', 'username_token', 'user_api_key', 'managed_key', 'agent_runtime');

/** What a client may see of a key: never the secret nor its hash. */
export const KeyViewJson = Type.Object({
  id: Type.Integer(),
  kind: KeyKindLabel,
  system: Type.Boolean({ description: 'Issued by the service (System Token, username token), not by the customer.' }),
  name: Nullable(Type.String()),
  prefix: Type.String(),
  last_four: Type.String(),
  policy: Type.Object({
    allowed_surfaces: Nullable(Type.Array(Type.String())),
    allowed_models: Nullable(Type.Array(Type.String())),
    spending_limit_micros: Nullable(Type.Integer()),
    spending_period: Nullable(Type.String()),
    rate_limit_plan: Nullable(Type.String()),
  }),
  created_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  last_used_at: Nullable(Timestamp),
});

const EdgeRegionJson = Type.Object({ id: Type.String(), name: Type.String(), api_base_url: Type.String() });

/** The answer to a completed dashboard sign-in (the session id itself is only in the HttpOnly cookie). */
const SessionJson = Type.Object({
  two_factor_required: Type.Literal(false),
  customer_id: Type.Integer(),
  csrf_token: Type.String(),
  csrf_header: Type.Literal('x-csrf-token'),
  expires_at: Timestamp,
});

const CryptoOrderJson = Type.Composite([
  Type.Object({ order_id: Type.String() }),
  Payment,
  Type.Object({
    pay_currency: Nullable(Type.String()),
    network: Nullable(Type.String()),
    invoice_url: Nullable(Type.String()),
    processor_status: Nullable(Type.String()),
    discount_code: Nullable(Type.String()),
    pay_amount: Nullable(Type.Union([Type.String(), Type.Number()], { description: 'Coin amount (the processor’s unit).' })),
    actually_paid: Nullable(Type.Union([Type.String(), Type.Number()])),
    receipt_available: Type.Boolean(),
  }),
]);

const RefundAddressJson = Type.Object({
  address_id: Type.String(),
  network: Type.String(),
  address: Type.String(),
  label: Nullable(Type.String()),
  created_at: Timestamp,
});

const PurchasePreferencesJson = Type.Object({
  default_pack_id: Nullable(Type.String()),
  payment_method: Nullable(Literals('card', 'crypto', 'cash')),
  pay_currency: Nullable(Type.String()),
  display_currency: Type.String({ description: 'ISO 4217 code of the estimates.' }),
});

const AutoTopupJson = Type.Object({
  enabled: Type.Boolean(),
  threshold: Money,
  pack_id: Nullable(Type.String()),
  armed: Type.Boolean({ description: 'A charge may start (re-armed once the balance is above the threshold again).' }),
  charge_pending: Type.Boolean(),
  saved_card: Type.Boolean(),
});

const EngagementJson = Type.Object({
  email: Type.Object({ productUpdates: Type.Boolean(), billing: Type.Boolean(), keyAlerts: Type.Boolean(), inboxDigest: Type.Boolean() }),
  inApp: Type.Object({ keyAlerts: Type.Boolean(), announcements: Type.Boolean() }),
});

const DailyTotalsJson = Type.Object({
  date: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
  requests: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  spend: Money,
});

const KeyHealthJson = Type.Object({
  ok: Type.Boolean({ description: 'Key active, model allowed, wallet can pay and destination reachable.' }),
  billable: Type.Literal(false),
  key: Type.Object({ id: Type.Integer(), active: Type.Boolean(), expires_at: Nullable(Timestamp), revoked: Type.Boolean() }),
  model: Type.Object({ requested: Nullable(Type.String()), resolved: Nullable(Type.String()), allowed: Type.Boolean() }),
  wallet: Type.Object({ ok: Type.Boolean(), available: Money, plan: Nullable(Type.String()) }),
  destination: Nullable(
    Type.Object({
      provider: Nullable(Type.String()),
      reachable: Type.Boolean(),
      status: Nullable(Type.Integer()),
      latency_ms: Type.Number(),
      error: Type.Optional(Type.String()),
    }),
  ),
});

// ---- Routes ----------------------------------------------------------------------------------------------

export const accountResponses: ResponseCatalog = {
  // Regions and sign-up
  'GET /api/v1/status/regions': {
    200: Type.Object({
      regions: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          api_base_url: Type.String(),
          available: Type.Boolean(),
          status: Literals('available', 'unavailable'),
          latency_ms: Nullable(Type.Number()),
          reason: Nullable(Type.String()),
          checked_at: Timestamp,
        }),
      ),
      available: Type.Array(Type.String(), { description: 'Ids of the available regions.' }),
    }),
  },
  'POST /api/v1/customer/register': {
    201: Type.Object({
      customer: CustomerJson,
      api_key: Type.String({ description: 'The System Token, shown once.' }),
      api_key_id: Type.Integer(),
      username_token: Type.String({ description: 'Shown once.' }),
      username_token_id: Type.Integer(),
      ...CliConfiguration,
      email_verified: Type.Literal(false),
    }),
  },

  // Sign-in and sessions
  'POST /api/v1/auth/login': {
    200: Type.Object({ customer_id: Type.Integer(), api_key: Type.String(), api_key_id: Type.Integer(), ...CliConfiguration }),
  },
  'POST /api/v1/auth/web-login': {
    200: Type.Union([
      SessionJson,
      Type.Object({ two_factor_required: Type.Literal(true), challenge: Type.String(), expires_at: Timestamp }),
    ]),
  },
  'POST /api/v1/auth/web-login/2fa': { 200: SessionJson },
  'POST /api/v1/auth/logout': { 200: Type.Object({ signed_out: Type.Literal(true) }) },
  'POST /api/v1/auth/password-reset/request': { 202: Type.Object({ requested: Type.Literal(true), message: Type.String() }) },
  'POST /api/v1/auth/password-reset/confirm': { 200: Type.Object({ password_reset: Type.Literal(true) }) },
  'GET /api/v1/auth/sso': { 302: Redirect('To returnTo with a session cookie, or to the sign-in page when the link is not valid.') },
  'GET /api/v1/auth/idp/start': { 302: Redirect('To the identity provider.') },
  'GET /api/v1/auth/idp/callback': { 302: Redirect('To returnTo with a session cookie, or to /login.html?error=<code>.') },
  'GET /api/v1/auth/verify-email': { 302: Redirect('To the dashboard, or to the sign-in page when the link is not valid.') },
  'POST /api/v1/auth/reauthenticate': {
    200: Type.Object({ reauthenticated: Type.Literal(true), recent_for_seconds: Type.Integer() }),
  },
  'POST /api/v1/auth/email-change/undo': { 200: Type.Object({ email_change_undone: Type.Literal(true) }) },
  'GET /api/v1/auth/human-check': {
    200: Type.Object(
      {
        parameters: Type.Object({
          algorithm: Type.String(),
          nonce: Type.String(),
          salt: Type.String(),
          cost: Type.Number(),
          keyLength: Type.Integer(),
          keyPrefix: Type.String(),
          keySignature: Type.Optional(Type.String()),
          memoryCost: Type.Optional(Type.Number()),
          parallelism: Type.Optional(Type.Number()),
          expiresAt: Type.Optional(Type.Number()),
          data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
        signature: Type.Optional(Type.String()),
      },
      { description: 'An ALTCHA challenge.' },
    ),
  },
  'POST /api/v1/auth/operator-session': {
    201: Type.Object({
      operator: Type.Literal(true),
      key_id: Type.Integer(),
      csrf_token: Type.String(),
      csrf_header: Type.Literal('x-csrf-token'),
      expires_at: Timestamp,
    }),
  },

  // The account
  'GET /api/v1/me': {
    200: Type.Object({
      customer: Type.Composite([CustomerJson, Type.Object({ vip: Type.Boolean() })]),
      key: Type.Object({ id: Type.Integer(), kind: KeyKindLabel }, { description: 'The credential of this call.' }),
      wallet: Type.Composite([Money, Type.Object({ available: Money, held: Money, plan: Nullable(Type.String()) })]),
      ...CliConfiguration,
      prices: Type.Array(
        Type.Object({ model: Type.String() }, { description: 'A model or alias and its current prices (the rate card’s fields).' }),
      ),
      profile: Type.Object({
        edge_region: Nullable(EdgeRegionJson),
        first_name: Nullable(Type.String()),
        surname: Nullable(Type.String()),
        show_name_dialog: Type.Boolean(),
      }),
      two_factor_enabled: Type.Boolean(),
      email_verified: Type.Boolean(),
      session: Type.Boolean({ description: 'The call came from a dashboard session (not a key).' }),
      features: Type.Object({
        card_payments: Type.Boolean(),
        crypto_payments: Type.Boolean(),
        bonus_code_mail: Type.Boolean(),
        auto_top_up: Type.Boolean(),
        unlimited_plans: Type.Boolean(),
        promotions: Type.Object({
          checkin: Type.Boolean(),
          spin_wheel: Type.Boolean(),
          share_credit: Type.Boolean(),
          raffle: Type.Boolean(),
          referral: Type.Boolean(),
        }),
        operator_contact: Nullable(Type.String()),
        billing_url: Type.String(),
      }),
    }),
  },
  'POST /api/v1/me/2fa/setup': {
    200: Type.Object({ secret: Type.String(), otpauth_uri: Type.String(), enabled: Type.Literal(false) }),
  },
  'POST /api/v1/me/2fa/enable': { 200: Type.Object({ enabled: Type.Literal(true) }) },
  'POST /api/v1/me/2fa/disable': { 200: Type.Object({ enabled: Type.Literal(false) }) },
  'POST /api/v1/me/edge-region': { 200: Type.Object({ edge_region: EdgeRegionJson }) },
  'POST /api/v1/me/email': { 200: Type.Object({ email: Type.String(), email_verified: Type.Literal(false) }) },
  'POST /api/v1/me/email/verification': { 202: Type.Object({ sent: Type.Literal(true) }) },
  'POST /api/v1/me/password': { 200: Type.Object({ password_changed: Type.Literal(true) }) },
  'POST /api/v1/me/profile-name': {
    200: Type.Object({ first_name: Type.String(), surname: Type.String(), show_name_dialog: Type.Literal(false) }),
  },
  'POST /api/v1/me/profile-name/dismiss': { 200: Type.Object({ dismissed_at: Timestamp, show_name_dialog: Type.Literal(false) }) },
  'POST /api/v1/me/sso-link': { 201: Type.Object({ url: Type.String(), expires_at: Timestamp }) },
  'GET /api/v1/me/api-key-alerts': {
    200: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.Integer(),
          key_id: Nullable(Type.Integer()),
          cause: Type.String({ description: 'e.g. spending_limit_80, key_expiring, new_network, password_changed.' }),
          details: Type.Record(Type.String(), Type.Unknown()),
          created_at: Timestamp,
          acknowledged: Type.Boolean(),
          acknowledged_at: Nullable(Timestamp),
        }),
      ),
      unacknowledged_count: Type.Integer(),
    }),
  },
  'POST /api/v1/me/api-key-alerts/:event_id/acknowledge': { 200: Type.Object({ id: Type.Integer(), acknowledged: Type.Literal(true) }) },
  'GET /api/v1/me/api-keys': { 200: Type.Object({ data: Type.Array(KeyViewJson) }) },
  'POST /api/v1/me/api-keys': {
    201: Type.Composite([KeyViewJson, Type.Object({ key: Type.String({ description: 'The secret, shown once.' }) })]),
  },
  'PATCH /api/v1/me/api-keys/:key_id': { 200: KeyViewJson },
  'DELETE /api/v1/me/api-keys/:key_id': { 200: Type.Composite([KeyViewJson, Type.Object({ revoked: Type.Literal(true) })]) },
  'POST /api/v1/me/api-keys/:key_id/replace': {
    201: Type.Composite([
      KeyViewJson,
      Type.Object({ key: Type.String({ description: 'The new secret, shown once.' }), replaces: Type.Integer() }),
    ]),
  },
  'POST /api/v1/me/api-token/rotate': {
    200: Type.Composite([
      KeyViewJson,
      Type.Object({ username_token: Type.String({ description: 'The new token, shown once.' }), next_rotation_at: Timestamp }),
    ]),
  },
  'GET /api/v1/me/api-keys/:key_id/usage': {
    200: Type.Object({
      key_id: Type.Integer(),
      days: Type.Integer(),
      since: Timestamp,
      totals: Type.Object({ requests: Type.Integer(), input_tokens: Type.Integer(), output_tokens: Type.Integer(), spend: Money }),
      daily: Type.Array(DailyTotalsJson),
    }),
  },
  'GET /api/v1/me/api-keys/:key_id/health': { 200: KeyHealthJson },
  'POST /api/v1/setup/health-check': { 200: KeyHealthJson },

  // Inbox and notification preferences
  'GET /api/v1/messages': {
    200: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.Integer(),
          title: Type.String(),
          body: Type.String(),
          broadcast: Type.Boolean(),
          created_at: Timestamp,
          read: Type.Boolean(),
          read_at: Nullable(Timestamp),
        }),
      ),
      unread_count: Type.Integer(),
    }),
  },
  'POST /api/v1/messages/:message_id/read': { 200: Type.Object({ id: Type.Integer(), read: Type.Literal(true) }) },
  'GET /api/v1/customer-engagement': { 200: EngagementJson },
  'PUT /api/v1/customer-engagement': { 200: EngagementJson },
  'GET /api/v1/customer-engagement/unsubscribe': { 200: Media('text/html', 'A page whose button confirms the unsubscribe.') },
  'POST /api/v1/customer-engagement/unsubscribe': {
    200: Type.Object(
      { unsubscribed: Type.Literal(true), preference: Type.String({ description: 'e.g. email.productUpdates' }) },
      { description: 'JSON for a mail client’s one-click; an HTML page when the caller accepts text/html.' },
    ),
  },

  // Wallet, purchases and reports
  'GET /api/v1/wallet/status': { 200: Wallet },
  'GET /api/v1/wallet/payments': {
    200: Type.Object({
      payments: Type.Array(
        Type.Object({
          id: Type.Integer(),
          transfer_id: Type.String(),
          kind: Type.String(),
          wallet: Literals('token', 'cash'),
          amount: Money,
          memo: Nullable(Type.String()),
          created_at: Timestamp,
        }),
      ),
      purchases: Type.Array(Payment),
    }),
  },
  'GET /api/v1/billing/token-usage': {
    200: Type.Object({
      transactions: Type.Array(
        Type.Object({
          id: Type.Integer(),
          request_id: Type.String(),
          client_request_id: Nullable(Type.String()),
          agent_turn: Nullable(Type.Object({ thread_id: Type.String(), turn_id: Nullable(Type.String()) })),
          key_id: Nullable(Type.Integer()),
          model: Type.String(),
          requested_model: Type.String(),
          operation: Type.String(),
          rate_card: Type.String(),
          status: Type.String(),
          outcome: Nullable(Type.String()),
          input_tokens: Nullable(Type.Integer()),
          output_tokens: Nullable(Type.Integer()),
          cached_input_tokens: Nullable(Type.Integer()),
          cache_write_tokens: Nullable(Type.Integer()),
          cache_write_1h_tokens: Nullable(Type.Integer()),
          usage_source: Nullable(Type.String()),
          cost: Money,
          hold: Money,
          covered_by_plan: Nullable(Type.String()),
          dropped_tools: Type.Array(Type.String()),
          dropped_fields: Type.Array(Type.String()),
          created_at: Timestamp,
        }),
      ),
      daily_spend: Type.Array(DailyTotalsJson),
      daily_by_model: Type.Array(Type.Composite([DailyTotalsJson, Type.Object({ model: Type.String() })])),
    }),
  },
  'GET /api/v1/billing/currency-estimates': {
    200: Type.Object({
      estimate: Type.Literal(true),
      checkout_currency: Type.Literal('USD'),
      note: Type.String(),
      as_of: Nullable(Type.String()),
      display: Type.Object({
        currency: Type.String(),
        per_usd: Type.Number(),
        requested: Type.String(),
        available_estimate: Type.Number(),
      }),
      packs: Type.Array(Type.Object({ pack_id: Type.String(), price: Money, price_estimate: Type.Number() })),
      available: Money,
      estimates: Type.Array(Type.Object({ currency: Type.String(), per_usd: Type.Number(), available_estimate: Type.Number() })),
    }),
  },
  'GET /api/v1/activity.csv': { 200: Media('text/csv', 'The filtered activity, newest first, header line first.') },
  'POST /api/v1/wallet/card/checkout': {
    201: Type.Object({ session_id: Type.String(), checkout_url: Type.String(), payment: Payment }),
  },
  'POST /api/v1/wallet/card/confirm': { 200: Type.Object({ credited: Type.Boolean(), payment: Payment }) },
  'GET /api/v1/wallet/crypto/options': {
    200: Type.Object({
      enabled: Type.Boolean(),
      price_currency: Type.Literal('USD'),
      coins: Type.Array(Type.Object({ currency: Type.String(), name: Type.String(), network: Type.String() })),
      packs: Type.Array(
        Type.Object({ id: Type.String(), name: Type.String(), price_micros: Type.Integer(), credit_micros: Type.Integer() }),
      ),
      max_refund_addresses: Type.Integer(),
    }),
  },
  'POST /api/v1/wallet/crypto/checkout': { 201: CryptoOrderJson },
  'GET /api/v1/wallet/crypto/orders/:order_id': {
    200: Type.Composite([
      CryptoOrderJson,
      Type.Object({
        payouts: Type.Array(
          Type.Object({
            kind: Literals('overpayment', 'refund'),
            network: Type.String(),
            currency: Type.String(),
            amount: Type.String({ description: 'Coin amount (the processor’s unit).' }),
            address: Nullable(Type.String()),
            status: Literals('awaiting_address', 'sent', 'failed'),
            processor_payout_id: Nullable(Type.String()),
            created_at: Timestamp,
          }),
        ),
      }),
    ]),
  },
  'GET /api/v1/wallet/crypto/orders/:order_id/receipt.pdf': { 200: Media('application/pdf', 'The PDF receipt.', 'binary') },
  'GET /api/v1/wallet/crypto/refund-addresses': {
    200: Type.Object({ addresses: Type.Array(RefundAddressJson), max: Type.Integer() }),
  },
  'POST /api/v1/wallet/crypto/refund-addresses': { 201: RefundAddressJson },
  'DELETE /api/v1/wallet/crypto/refund-addresses/:address_id': { 204: Type.Null({ description: 'Deleted.' }) },
  'POST /api/v1/wallet/top-up': { 200: Type.Object({ credited: Type.Boolean(), purchase: Payment }) },
  'POST /api/v1/wallet/topup-discount': {
    200: Type.Union([
      Type.Object({
        valid: Type.Literal(true),
        code: Type.String(),
        bonus_percent: Type.Number(),
        expires_at: Nullable(Timestamp),
        packs: Type.Array(Type.Object({ pack_id: Type.String(), price: Money, bonus: Money })),
      }),
      Type.Object({ valid: Type.Literal(false), reason: Type.String() }),
    ]),
  },
  'POST /api/v1/wallet/topupemail-session-discount': {
    201: Type.Object({ mailed_to: Type.String(), bonus_percent: Type.Number(), expires_at: Timestamp }),
  },
  'GET /api/v1/purchase-preferences': { 200: PurchasePreferencesJson },
  'PUT /api/v1/purchase-preferences': { 200: PurchasePreferencesJson },
  'GET /api/v1/wallet/auto-topup': { 200: AutoTopupJson },
  'POST /api/v1/wallet/auto-topup': { 200: AutoTopupJson },
};
