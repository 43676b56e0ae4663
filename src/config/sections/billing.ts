/**
 * Billing configuration: rate cards (integer micro-USD per million tokens), holds and group commit, rate-limit
 * plans, Unlimited Coding plans with fair-use thresholds, VIP, currency estimates and the marketplace provider.
 */
import { Type, type Static } from '@sinclair/typebox';

export const RateCard = Type.Object({
  label: Type.Optional(Type.String()),
  /** Integer micro-USD per one million input tokens ($4.00/M = 4_000_000). */
  inputMicrosPerMillion: Type.Integer({ minimum: 0 }),
  outputMicrosPerMillion: Type.Integer({ minimum: 0 }),
  cachedInputMicrosPerMillion: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Prompt-cache writes kept 5 minutes; absent = 1.25x input (Anthropic's price). */
  cacheWriteMicrosPerMillion: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Prompt-cache writes kept 1 hour; absent = 2x input. */
  cacheWrite1hMicrosPerMillion: Type.Optional(Type.Integer({ minimum: 0 })),
  note: Type.Optional(Type.String()),
});
export type RateCardConfig = Static<typeof RateCard>;

export const RateLimitPlan = Type.Object({
  /** Requests allowed in any sliding 60-second window; absent = unlimited. */
  requestsPerMinute: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Requests of one key in flight at once; absent = unlimited. */
  concurrentRequests: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type RateLimitPlanConfig = Static<typeof RateLimitPlan>;

export const UnlimitedPlan = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  priceMicros: Type.Integer({ minimum: 0 }),
  durationDays: Type.Integer({ minimum: 1, default: 30 }),
  /** Model ids or aliases the plan covers; absent = every model. */
  models: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Surfaces the plan covers (`gateway`, `projects`); absent = both. */
  surfaces: Type.Optional(Type.Array(Type.Union([Type.Literal('gateway'), Type.Literal('projects')]))),
  fairUse: Type.Object(
    {
      /** Covered requests per rolling hour; beyond it 429 with Retry-After. */
      requestsPerHour: Type.Optional(Type.Integer({ minimum: 1 })),
      /** Covered tokens (input + output) per rolling 24 hours. */
      tokensPerDay: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { default: {} },
  ),
});
export type UnlimitedPlanConfig = Static<typeof UnlimitedPlan>;

export const BillingSection = {
  rateCards: Type.Record(Type.String({ minLength: 1 }), RateCard, { default: {} }),
  /** Rate card of an alias (e.g. `power-ai`); absent = the destination model's card. */
  aliasRateCards: Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), { default: {} }),
  rateLimitPlans: Type.Record(Type.String({ minLength: 1 }), RateLimitPlan, { default: {} }),
  unlimitedPlans: Type.Array(UnlimitedPlan, { default: [] }),
  billing: Type.Object(
    {
      /** false: every call is free (benchmark baseline); the wallet routes still work. */
      enabled: Type.Boolean({ default: true }),
      /** Output tokens reserved when a request names no max_tokens. */
      defaultHoldOutputTokens: Type.Integer({ minimum: 1, default: 4_096 }),
      /** Holds older than this are released by the sweeper when their process is gone (a live process keeps its holds up to a 24 h backstop). */
      holdTtlMs: Type.Integer({ minimum: 1_000, default: 15 * 60_000 }),
      /**
       * How long the spare credit a committed hold reported may start the account's next call before that call's
       * own hold has committed (its upstream request overlaps the commit; no byte of the answer leaves before it).
       * 0: every call waits for its hold's commit. Keys with a spending limit always wait.
       */
      earlyHoldTrustMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
      /**
       * Credit reservations (SQLite ledger thread only: one process per database file): a wallet with at least
       * `minCallsPerSecond` calls a second gets credit held once for this process, and its calls draw their holds
       * from it in memory instead of committing one each; their rows are written with their settlements.
       */
      reservations: Type.Object(
        {
          /** Largest reservation per wallet, in micro-USD; 0 turns reservations off. */
          maxMicros: Type.Integer({ minimum: 0, default: 5_000_000 }),
          /** Calls a second on one wallet before this process reserves credit for it. */
          minCallsPerSecond: Type.Integer({ minimum: 1, default: 10 }),
          /** A reservation no call drew from for this long is given back to the wallet. */
          idleReleaseMs: Type.Integer({ minimum: 100, maximum: 600_000, default: 2_000 }),
        },
        { default: {}, additionalProperties: false },
      ),
      /** Heartbeat and sweep period; a process silent for three periods is gone and its holds are released. */
      sweepIntervalMs: Type.Integer({ minimum: 100, default: 10_000 }),
      idempotencyRetentionMs: Type.Integer({ minimum: 24 * 3600_000, default: 48 * 3600_000 }),
      marketplaceCreditMicros: Type.Integer({ minimum: 0, default: 200_000_000 }),
      /** Prefix of the shared rate-limit keys in Redis (one per deployment sharing a Redis). */
      redisPrefix: Type.String({ minLength: 1, default: 'switchyard:limits:' }),
      /** Rate-limit plan of keys that name none; absent = no limit. */
      defaultRateLimitPlan: Type.Optional(Type.String({ minLength: 1 })),
      /** How long rate-card switches and plan subscriptions are cached per node. */
      cacheTtlMs: Type.Integer({ minimum: 0, default: 2_000 }),
      /** Timeout of the reachability probe of the non-billable health checks. */
      healthProbeTimeoutMs: Type.Integer({ minimum: 100, default: 3_000 }),
      groupCommit: Type.Object(
        {
          /** Batch the ledger writes of concurrent requests into one transaction (one fsync); on SQLite in a worker thread. */
          enabled: Type.Boolean({ default: true }),
          /** Most operations in one batch transaction. */
          maxBatch: Type.Integer({ minimum: 1, default: 256 }),
          /** Also batch on PostgreSQL (several writers; off by default, row locks already run in parallel). */
          onPostgres: Type.Boolean({ default: false }),
          /**
           * SQLite: longest a settlement waits to ride with the next hold's transaction, and the WAL sync window
           * (a commit reaches the disk within it). 0 sends each settlement at once.
           */
          settleWindowMs: Type.Integer({ minimum: 0, maximum: 1_000, default: 20 }),
        },
        { default: {} },
      ),
    },
    { default: {} },
  ),
  vip: Type.Object(
    {
      /** Host names of the VIP priority servers (matched against the request's Host header). */
      hosts: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** Model ids or aliases only VIP customers may use. */
      models: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      description: Type.String({ default: 'Priority servers for VIP customers.' }),
    },
    { default: {} },
  ),
  currencyEstimates: Type.Object(
    {
      /** Local-currency units per 1 USD (estimates only; checkout stays USD). */
      rates: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number({ exclusiveMinimum: 0 }), { default: {} }),
      asOf: Type.Optional(Type.String()),
    },
    { default: {} },
  ),
  marketplace: Type.Object(
    {
      /** Base URL of the licence provider; `POST {providerUrl}/licenses/verify`. Absent: registration is off. */
      providerUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
      /** Bearer secret sent to the provider. */
      secret: Type.Optional(Type.String()),
      productId: Type.String({ default: 'switchyard' }),
      timeoutMs: Type.Integer({ minimum: 100, default: 5_000 }),
    },
    { default: {} },
  ),
};
