/** The inbox entry of an alert: which causes land in the inbox (key and sign-in alerts) and their words. */

/**
 * Causes one can raise many times a day (each first use of a key, or sign-in, from another network: a CI on a
 * cloud's many networks, a leaked key used from rotating addresses): only the first `NOTICES_PER_DAY` of a day
 * are put in the inbox and mailed; the others are in the alert list only.
 */
export const BURSTY_CAUSES: readonly string[] = ['new_network', 'new_sign_in_network'];
export const NOTICES_PER_DAY = 3;
import { formatUsd } from '../kernel/money.js';
import type { AlertInput } from './alerts.js';

const usd = (micros: unknown) => (typeof micros === 'number' ? `USD ${formatUsd(micros).replace(/(\.\d{2})\d+$/, '$1')}` : 'its limit');

export function alertNotice(alert: AlertInput): { title: string; body: string } | null {
  const details = alert.details ?? {};
  const key = typeof details.key_name === 'string' ? `"${details.key_name}"` : alert.keyId ? `#${alert.keyId}` : 'an API key';
  switch (alert.cause) {
    case 'key_expiring':
      return {
        title: 'API key expiring',
        body: `Your API key ${key} expires at ${String(details.expires_at)}. Create a new one before then.`,
      };
    case 'spending_limit_reached':
      return {
        title: 'Spending limit reached',
        body: `API key ${key} reached its spending limit (${usd(details.spent_micros)} spent of ${usd(details.limit_micros)}); its calls are refused until the period ends or the limit is raised.`,
      };
    case 'new_network':
      return {
        title: 'API key used from a new network',
        body: `API key ${key} was used from ${String(details.network)}, a network it was not used from before.`,
      };
    case 'new_sign_in_network':
      return {
        title: 'Sign-in from a new network',
        body: `Someone signed in to your dashboard from ${String(details.network)}, a network you never signed in from. If it was not you, change your password.`,
      };
    default:
      return null;
  }
}
