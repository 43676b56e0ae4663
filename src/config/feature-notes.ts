/**
 * What the start-up log says about features the configuration leaves off, one line each at warn, so an operator
 * learns from the first start that (say) mail only reaches the outbox or that nobody can pay by card.
 */
import type { AppConfig } from './load-config.js';

export interface DisabledFeature {
  feature: string;
  reason: string;
}

export function disabledFeatures(config: AppConfig): DisabledFeature[] {
  const off: DisabledFeature[] = [];
  if (!config.mail.smtp) {
    off.push({
      feature: 'mail',
      reason: 'no SMTP server (mail.smtp): every mail is kept in the outbox; read it in the console (Outbox) and hand links over yourself',
    });
  }
  if (!config.payments.card.enabled) off.push({ feature: 'card payments', reason: 'no card processor (payments.card.enabled is false)' });
  if (!config.payments.crypto.enabled) {
    off.push({ feature: 'crypto payments', reason: 'no crypto processor (payments.crypto.enabled is false)' });
  }
  if (!config.idp.issuer || !config.idp.clientId) {
    off.push({ feature: 'identity-provider sign-in', reason: 'no identity provider (idp.issuer and idp.clientId)' });
  }
  const promotions = config.promotions;
  const promotionSwitches: [string, boolean, string][] = [
    ['daily check-in', promotions.checkin.enabled, 'promotions.checkin.enabled'],
    ['spin wheel', promotions.spinWheel.enabled, 'promotions.spinWheel.enabled'],
    ['share credit', promotions.shareCredit.enabled, 'promotions.shareCredit.enabled'],
    ['raffle', promotions.raffle.enabled, 'promotions.raffle.enabled'],
  ];
  for (const [feature, enabled, key] of promotionSwitches) {
    if (!enabled) off.push({ feature: `promotion: ${feature}`, reason: `promotions are off unless configured (${key})` });
  }
  if (promotions.referral.shareBasisPoints === 0) {
    off.push({
      feature: 'promotion: referral share',
      reason: 'promotions are off unless configured (promotions.referral.shareBasisPoints is 0)',
    });
  }
  if (!config.chatbot.webhookSecret || !config.chatbot.botToken) {
    off.push({ feature: 'chat bot', reason: 'no bot configured (chatbot.webhookSecret and chatbot.botToken)' });
  }
  if (!config.adNetwork.enabled) off.push({ feature: 'ad-network conversions', reason: 'adNetwork.enabled is false' });
  if (config.accounts.registration !== 'open') {
    off.push({
      feature: 'open registration',
      reason:
        config.accounts.registration === 'invite'
          ? 'accounts.registration is invite: only people invited from the console can sign up'
          : 'accounts.registration is closed: only the operator creates accounts',
    });
  }
  return off;
}
