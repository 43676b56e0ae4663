/**
 * Where a customer adds credit: the dashboard's Money page. Every 402 for want of credit names it, in the body
 * (`billing_url`, in each protocol's error object) and in the message, so a client that shows only the message
 * (Codex prints `unexpected status 402 …`) still tells the user where to go next.
 */
import { billingUrl } from '../accounts/dashboard-features.js';
import type { AppConfig } from '../config/load-config.js';
import { AppError, isAppError } from '../kernel/errors.js';

/** The same 402 with the Money page's address; any other error unchanged. */
export function withBillingLink(error: unknown, config: Pick<AppConfig, 'publicBaseUrl'>): unknown {
  if (!isAppError(error) || error.code !== 'INSUFFICIENT_CREDIT' || error.details?.billing_url !== undefined) return error;
  const url = billingUrl(config);
  return new AppError('INSUFFICIENT_CREDIT', `${error.message}. Add credit at ${url}`, {
    details: { ...error.details, billing_url: url },
    headers: { ...error.headers, link: `<${url}>; rel="payment"` },
    cause: error,
  });
}
