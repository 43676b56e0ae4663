/**
 * Email verification: a single-use link (a 256-bit token, stored as a keyed hash) mailed to the account's address
 * at sign-up and after an email change, valid 24 hours. Opening it marks the account's email verified, provided
 * the address is still the one the link was sent to. Free credit (promotions) needs a verified email; paying and
 * using what was paid for does not.
 */
import type { Logger } from 'pino';
import { validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Mailer } from './mailer.js';
import { SecretBox } from './secrets.js';

export const VERIFY_TTL_MS = 24 * 3_600_000;

export class EmailVerification {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly publicBaseUrl: string,
  ) {}

  /** Stores a new link for the account's current address and mails it (off the request path); returns the token. */
  async send(customerId: number): Promise<string> {
    const customer = await this.storage.db.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirstOrThrow();
    const token = SecretBox.token();
    const now = this.clock.nowMs();
    await this.storage.db
      .insertInto('email_verifications')
      .values({
        customer_id: customerId,
        email: customer.email,
        token_hash: this.box.hash('email-verify', token),
        expires_at: now + VERIFY_TTL_MS,
        created_at: now,
      })
      .execute();
    const link = `${this.publicBaseUrl}/api/v1/auth/verify-email?token=${token}`;
    void this.mailer
      .send({
        to: customer.email,
        subject: 'Confirm your Switchyard email address',
        text: `Open this link within 24 hours to confirm that this address belongs to your Switchyard account:\n\n${link}\n\nIf you did not sign up, ignore this mail.`,
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'sending the verification mail failed'));
    return token;
  }

  /** Uses the link once; the customer whose address it confirmed, or a 422 naming the token. */
  async confirm(token: string): Promise<number> {
    const now = this.clock.nowMs();
    const customerId = await this.storage.db.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('email_verifications')
        .set({ used_at: now })
        .where('token_hash', '=', this.box.hash('email-verify', token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['customer_id', 'email'])
        .executeTakeFirst();
      if (!used) return null;
      const updated = await trx
        .updateTable('customers')
        .set({ email_verified_at: now })
        .where('id', '=', used.customer_id)
        .where('email', '=', used.email)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1 ? Number(used.customer_id) : null;
    });
    if (customerId === null) {
      throw validationError([
        { loc: ['query', 'token'], msg: 'This link is invalid, expired, already used or for a former address', type: 'value_error' },
      ]);
    }
    return customerId;
  }

  async isVerified(customerId: number): Promise<boolean> {
    const row = await this.storage.db.selectFrom('customers').select('email_verified_at').where('id', '=', customerId).executeTakeFirst();
    return row?.email_verified_at !== null && row?.email_verified_at !== undefined;
  }
}
