/** Billing configuration: rate cards (integer micro-USD per million tokens), holds, plans, limits, marketplace. */
import { Type, type Static } from '@sinclair/typebox';

export const RateCard = Type.Object({
  label: Type.Optional(Type.String()),
  /** Integer micro-USD per one million input tokens ($4.00/M = 4_000_000). */
  inputMicrosPerMillion: Type.Integer({ minimum: 0 }),
  outputMicrosPerMillion: Type.Integer({ minimum: 0 }),
  cachedInputMicrosPerMillion: Type.Optional(Type.Integer({ minimum: 0 })),
  note: Type.Optional(Type.String()),
});
export type RateCardConfig = Static<typeof RateCard>;

export const BillingSection = {
  rateCards: Type.Record(Type.String({ minLength: 1 }), RateCard, { default: {} }),
  billing: Type.Object(
    {
      /** Output tokens reserved when a request names no max_tokens. */
      defaultHoldOutputTokens: Type.Integer({ minimum: 1, default: 4_096 }),
      /** Holds older than this are released by the sweeper. */
      holdTtlMs: Type.Integer({ minimum: 1_000, default: 15 * 60_000 }),
      idempotencyRetentionMs: Type.Integer({ minimum: 24 * 3600_000, default: 48 * 3600_000 }),
      marketplaceCreditMicros: Type.Integer({ minimum: 0, default: 200_000_000 }),
    },
    { default: {} },
  ),
};
