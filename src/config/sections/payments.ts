/**
 * Payments and promotions configuration: credit packs, the card processor (Stripe API shape) and its webhook
 * secret, and the promotion tables (daily check-in, spin wheel, share credit, referral share, raffle). Amounts are
 * integer micro-USD; checkout is always in USD. Secrets come from the environment through `${ENV}` substitution.
 */
import { Type, type Static } from '@sinclair/typebox';

/** Checkout amounts go to the processor in cents, so pack prices are whole cents. */
const Cents = (options: { minimum?: number; default?: number } = {}) => Type.Integer({ minimum: 0, multipleOf: 10_000, ...options });

export const CreditPack = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' }),
  name: Type.String({ minLength: 1 }),
  /** Price charged at checkout (USD micro-units, whole cents). */
  priceMicros: Cents({ minimum: 10_000 }),
  /** Credit loaded into the wallet when paid; absent = the price. */
  creditMicros: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type CreditPackConfig = Static<typeof CreditPack>;

export const PaymentsSection = Type.Object(
  {
    packs: Type.Array(CreditPack, {
      default: [
        { id: 'pack-10', name: '$10 credit', priceMicros: 10_000_000 },
        { id: 'pack-25', name: '$25 credit', priceMicros: 25_000_000 },
        { id: 'pack-100', name: '$100 credit', priceMicros: 100_000_000, creditMicros: 105_000_000 },
      ],
    }),
    card: Type.Object(
      {
        /** false: the card routes answer 404 (no processor configured). */
        enabled: Type.Boolean({ default: false }),
        /** API base URL of the processor (Stripe's, or a local test double). */
        apiBaseUrl: Type.String({ minLength: 1, default: 'https://api.stripe.com' }),
        /** Secret API key (`${CARD_PROCESSOR_SECRET_KEY}`). */
        secretKey: Type.String({ default: '' }),
        /** Endpoint secret of the webhook `POST /api/v1/card/webhook` (`${CARD_WEBHOOK_SECRET}`). */
        webhookSecret: Type.String({ default: '' }),
        /** Seconds a signed webhook timestamp may differ from the server clock (either way). */
        webhookToleranceSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 300 }),
        /**
         * Where the hosted checkout returns; `{CHECKOUT_SESSION_ID}` is filled in by the processor. Absent: this
         * service's dashboard (`<public URL>/dashboard.html?checkout={CHECKOUT_SESSION_ID}`, `?checkout=cancelled`).
         */
        successUrl: Type.Optional(Type.String({ minLength: 1 })),
        cancelUrl: Type.Optional(Type.String({ minLength: 1 })),
        timeoutMs: Type.Integer({ minimum: 100, default: 20_000 }),
      },
      { default: {} },
    ),
    crypto: Type.Object(
      {
        /** false: the crypto routes answer 404 (no processor configured). */
        enabled: Type.Boolean({ default: false }),
        /** API base URL of the crypto processor (NOWPayments' invoice API, or a local test double). */
        apiBaseUrl: Type.String({ minLength: 1, default: 'https://api.nowpayments.io' }),
        /** API key (`${CRYPTO_PROCESSOR_API_KEY}`). */
        apiKey: Type.String({ default: '' }),
        /** IPN secret: callbacks carry HMAC-SHA512 of their key-sorted JSON body (`${CRYPTO_IPN_SECRET}`). */
        ipnSecret: Type.String({ default: '' }),
        /** Callback URL given to the processor; absent = the public base URL + `/api/v1/crypto/ipn`. */
        ipnCallbackUrl: Type.Optional(Type.String({ minLength: 1 })),
        /** Absent: this service's dashboard (`<public URL>/dashboard.html?crypto=paid`, `?crypto=cancelled`). */
        successUrl: Type.Optional(Type.String({ minLength: 1 })),
        cancelUrl: Type.Optional(Type.String({ minLength: 1 })),
        coins: Type.Array(
          Type.Object({
            /** The processor's pay-currency code (`btc`, `eth`, `usdttrc20`). */
            currency: Type.String({ minLength: 1, maxLength: 32 }),
            name: Type.String({ minLength: 1 }),
            network: Type.String({ minLength: 1, maxLength: 32 }),
            /** Refund-address format of the network. */
            addressFormat: Type.Union([Type.Literal('evm'), Type.Literal('bitcoin'), Type.Literal('tron'), Type.Literal('solana')]),
          }),
          {
            default: [
              { currency: 'btc', name: 'Bitcoin', network: 'bitcoin', addressFormat: 'bitcoin' },
              { currency: 'eth', name: 'Ether', network: 'ethereum', addressFormat: 'evm' },
              { currency: 'usdcbase', name: 'USD Coin (Base)', network: 'base', addressFormat: 'evm' },
              { currency: 'usdttrc20', name: 'Tether USD (Tron)', network: 'tron', addressFormat: 'tron' },
              { currency: 'sol', name: 'Solana', network: 'solana', addressFormat: 'solana' },
            ],
          },
        ),
        /** Saved refund addresses per customer. */
        maxRefundAddresses: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
        timeoutMs: Type.Integer({ minimum: 100, default: 20_000 }),
      },
      { default: {} },
    ),
    /** Top-up bonus codes: a bonus of a percentage of the pack's credit, loaded with a paid checkout. */
    discountCodes: Type.Array(
      Type.Object({
        code: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
        bonusPercent: Type.Integer({ minimum: 1, maximum: 100 }),
        /** ISO date-time after which the code is refused; absent = no expiry. */
        expiresAt: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$' })),
        /** Total uses across customers; absent = unlimited. Each customer may use a code once. */
        maxUses: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
      { default: [] },
    ),
    /** The personal, time-boxed discount mailed by `POST /api/v1/wallet/topupemail-session-discount`. */
    sessionDiscount: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        bonusPercent: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
        validMinutes: Type.Integer({ minimum: 1, maximum: 7 * 24 * 60, default: 60 }),
      },
      { default: {} },
    ),
    /** Seller shown on receipts. */
    seller: Type.Object(
      {
        name: Type.String({ minLength: 1, default: 'Switchyard' }),
        address: Type.String({ default: '' }),
        email: Type.String({ default: '' }),
      },
      { default: {} },
    ),
  },
  { default: {} },
);
export type PaymentsConfig = Static<typeof PaymentsSection>;

export const CheckinReward = Type.Object({
  /** Streak day this reward applies to (1 = first day); the last entry repeats for longer streaks. */
  day: Type.Integer({ minimum: 1 }),
  rewardMicros: Type.Integer({ minimum: 0 }),
});

export const SpinPrize = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  label: Type.String({ minLength: 1 }),
  amountMicros: Type.Integer({ minimum: 0 }),
  /** Relative weight of the prize in the draw (integer). */
  weight: Type.Integer({ minimum: 1 }),
});

export const PromotionsSection = Type.Object(
  {
    checkin: Type.Object(
      {
        /** Off unless the operator turns it on: every promotion credits from the operator's upstream budget. */
        enabled: Type.Boolean({ default: false }),
        rewards: Type.Array(CheckinReward, {
          minItems: 1,
          default: [
            { day: 1, rewardMicros: 100_000 },
            { day: 2, rewardMicros: 150_000 },
            { day: 3, rewardMicros: 200_000 },
            { day: 7, rewardMicros: 500_000 },
          ],
        }),
      },
      { default: {} },
    ),
    spinWheel: Type.Object(
      {
        enabled: Type.Boolean({ default: false }),
        prizes: Type.Array(SpinPrize, {
          minItems: 1,
          default: [
            { id: 'small', label: '$0.50 credit', amountMicros: 500_000, weight: 60 },
            { id: 'medium', label: '$2 credit', amountMicros: 2_000_000, weight: 30 },
            { id: 'large', label: '$10 credit', amountMicros: 10_000_000, weight: 10 },
          ],
        }),
      },
      { default: {} },
    ),
    shareCredit: Type.Object(
      {
        enabled: Type.Boolean({ default: false }),
        /** The one-time share credit ($10). */
        amountMicros: Type.Integer({ minimum: 0, default: 10_000_000 }),
        /** Where the share link `/r/{referral_code}` sends its visitors (`?ref=<code>` is appended); a path is on this service. Default: the sign-up page. */
        landingUrl: Type.String({ minLength: 1, default: '/login.html#/register' }),
      },
      { default: {} },
    ),
    referral: Type.Object(
      {
        /** Share of a referred customer's paid top-ups credited to the referrer's cash wallet, in basis points (0 = off). */
        shareBasisPoints: Type.Integer({ minimum: 0, maximum: 10_000, default: 0 }),
        /** Club levels by number of referred customers who paid at least once. */
        levels: Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), minPaidReferrals: Type.Integer({ minimum: 0 }) }), {
          default: [
            { name: 'member', minPaidReferrals: 0 },
            { name: 'silver', minPaidReferrals: 3 },
            { name: 'gold', minPaidReferrals: 10 },
          ],
        }),
      },
      { default: {} },
    ),
    raffle: Type.Object(
      {
        enabled: Type.Boolean({ default: false }),
        /** Prize of each winner, credited from the promotions account. */
        prizeMicros: Type.Integer({ minimum: 0, default: 25_000_000 }),
        winners: Type.Integer({ minimum: 1, maximum: 100, default: 1 }),
        /** Length of one raffle period; it draws at its end and the next opens. */
        periodDays: Type.Integer({ minimum: 1, maximum: 366, default: 7 }),
        /** Entries earned per daily check-in and per paid top-up. */
        entriesPerCheckin: Type.Integer({ minimum: 0, default: 1 }),
        entriesPerPaidTopUp: Type.Integer({ minimum: 0, default: 5 }),
      },
      { default: {} },
    ),
  },
  { default: {} },
);
export type PromotionsConfig = Static<typeof PromotionsSection>;

/** Server-side conversion events forwarded to the ad network (Reddit Conversions API shape). */
export const AdNetworkSection = Type.Object(
  {
    /** false: `POST /api/v1/adnetwork/conversion` answers 404. */
    enabled: Type.Boolean({ default: false }),
    apiBaseUrl: Type.String({ minLength: 1, default: 'https://ads-api.reddit.com' }),
    /** Ad account id in the events path (`/api/v2.0/conversions/events/{accountId}`). */
    accountId: Type.String({ default: '' }),
    /** Conversion access token, sent as the bearer (`${AD_NETWORK_ACCESS_TOKEN}`). */
    accessToken: Type.String({ default: '' }),
    /** Mark forwarded events as test events. */
    testMode: Type.Boolean({ default: false }),
    /** Conversions accepted per client address per minute. */
    requestsPerMinute: Type.Integer({ minimum: 1, default: 30 }),
    timeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
  },
  { default: {} },
);
export type AdNetworkConfig = Static<typeof AdNetworkSection>;
