/**
 * What this service offers a customer, as the dashboard needs it to hide what is off (`GET /api/v1/me` →
 * `features`): payment methods, the mailed bonus code, auto top-up, Unlimited plans and each promotion, with where
 * credit comes from when no payment method is on (the operator's contact) and the page that explains it.
 */
import type { AppConfig } from '../config/load-config.js';

/** The dashboard's Money page, where a customer adds credit (every 402 for want of credit links to it). */
export function billingUrl(config: Pick<AppConfig, 'publicBaseUrl'>): string {
  return `${config.publicBaseUrl}/dashboard.html#/money`;
}

export function dashboardFeatures(config: AppConfig) {
  const { payments, promotions } = config;
  const anyPayment = payments.card.enabled || payments.crypto.enabled;
  return {
    card_payments: payments.card.enabled,
    crypto_payments: payments.crypto.enabled,
    /** A bonus code only helps a top-up, and is only useful when mail really goes out. */
    bonus_code_mail: anyPayment && payments.sessionDiscount.enabled && config.mail.smtp !== undefined,
    auto_top_up: payments.card.enabled,
    unlimited_plans: config.unlimitedPlans.length > 0,
    promotions: {
      checkin: promotions.checkin.enabled,
      spin_wheel: promotions.spinWheel.enabled,
      share_credit: promotions.shareCredit.enabled,
      raffle: promotions.raffle.enabled,
      /** Referrers earn a share of paid top-ups: nothing to earn without a payment method. */
      referral: anyPayment,
    },
    operator_contact: config.accounts.operatorContact ?? null,
    billing_url: billingUrl(config),
  };
}
