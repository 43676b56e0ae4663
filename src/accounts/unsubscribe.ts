/**
 * One-click unsubscribe links of the mail the service sends on its own. A link names the customer and the
 * engagement preference (`email.billing`, `email.productUpdates`, `email.inboxDigest`, `email.keyAlerts`) and is
 * signed with a keyed hash under the server secret, so it needs no sign-in and cannot be made for another
 * customer or preference. Opening it (GET) only checks it: mail scanners fetch links before anyone clicks, and
 * RFC 8058 says a GET must not unsubscribe. The POST (the page's button, or a mail client's one-click) turns the
 * preference off; it keeps working (a second click changes nothing).
 */
import { validationError } from '../kernel/errors.js';
import type { SecretBox } from './secrets.js';
import type { AccountSettings, EmailPreference } from './settings.js';

export const UNSUBSCRIBE_PATH = '/api/v1/customer-engagement/unsubscribe';
const EMAIL_PREFERENCES: readonly EmailPreference[] = ['billing', 'productUpdates', 'inboxDigest', 'keyAlerts'];

export class UnsubscribeLinks {
  constructor(
    private readonly box: SecretBox,
    private readonly settings: AccountSettings,
    private readonly publicBaseUrl: string,
  ) {}

  token(customerId: number, preference: EmailPreference): string {
    return `${customerId}.${preference}.${this.box.hash('unsubscribe', `${customerId}:${preference}`)}`;
  }

  url(customerId: number, preference: EmailPreference): string {
    return `${this.publicBaseUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(this.token(customerId, preference))}`;
  }

  /** Checks the token; the customer and preference it names (a bad token → 422). */
  check(token: string): { customerId: number; preference: EmailPreference } {
    const match = /^(\d{1,15})\.([A-Za-z]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
    const preference = match?.[2] as EmailPreference | undefined;
    if (
      !match ||
      !preference ||
      !EMAIL_PREFERENCES.includes(preference) ||
      !this.box.verify('unsubscribe', `${match[1]}:${preference}`, match[3]!)
    )
      throw validationError([{ loc: ['query', 'token'], msg: 'This unsubscribe link is not valid', type: 'value_error' }]);
    return { customerId: Number(match[1]), preference };
  }

  /** Checks the token and turns its preference off. */
  async apply(token: string): Promise<{ customerId: number; preference: EmailPreference }> {
    const named = this.check(token);
    await this.settings.setEmailPreference(named.customerId, named.preference, false);
    return named;
  }
}
