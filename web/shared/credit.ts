/**
 * "Out of credit" wherever it shows up: a 402 from `/api` (an `ApiError`), a gateway error body carrying
 * `billing_url`, or the text an agent turn reports when its model call was refused (Codex prints
 * `unexpected status 402 Payment Required: {…} url: …`). `creditProblem` recognises all three; `CreditNotice`
 * (credit-notice.tsx) says it in words with a link to the Money page instead of the raw text.
 */
import { ApiError } from './api';

export const MONEY_PAGE = '/dashboard.html#/money';

export interface CreditProblem {
  /** Where to add credit (the service's own Money page). */
  url: string;
}

const PAYMENT_REQUIRED = /\b402\b|insufficient[_ ](wallet )?credit|insufficient_quota|billing_error/i;

/** The Money page's path for a `billing_url` of this service (its hash route), else the default. */
function moneyLink(billingUrl: unknown, origin: string): string {
  if (typeof billingUrl !== 'string') return MONEY_PAGE;
  try {
    const parsed = new URL(billingUrl, origin);
    return parsed.origin === origin ? `${parsed.pathname}${parsed.hash}` : MONEY_PAGE;
  } catch {
    return MONEY_PAGE;
  }
}

/**
 * A want of credit, from an error object or an error text; null for anything else. `origin` is this page's (a
 * `billing_url` of another origin is not followed).
 */
export function creditProblem(error: unknown, origin: string = globalThis.location?.origin ?? ''): CreditProblem | null {
  if (error instanceof ApiError) {
    if (error.status !== 402) return null;
    return { url: moneyLink((error.body as { billing_url?: unknown } | null)?.billing_url, origin) };
  }
  if (error && typeof error === 'object') {
    const inner = (error as { error?: { billing_url?: unknown } }).error;
    const url = (error as { billing_url?: unknown }).billing_url ?? inner?.billing_url;
    if (typeof url === 'string') return { url: moneyLink(url, origin) };
    const message = (error as { message?: unknown }).message ?? (inner as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? creditProblem(message, origin) : null;
  }
  if (typeof error === 'string' && PAYMENT_REQUIRED.test(error)) {
    const named = error.match(/https?:\/\/[^\s"'<>]+dashboard\.html#\/money/);
    return { url: moneyLink(named?.[0], origin) };
  }
  return null;
}
