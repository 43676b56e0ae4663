/**
 * Invites and password-set links: what the operator sends from the console. An invite lets one person register
 * with the invited email (the link carries a 256-bit token, stored as a keyed hash, used once); a password-set
 * link lets a customer the operator created choose a password. Each is mailed (to the outbox without SMTP) and
 * its link returned to the operator, so a service without SMTP can still hand it over.
 */
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import { AppError, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { normalizeEmail } from './customer-service.js';
import type { Mailer } from './mailer.js';
import { SecretBox } from './secrets.js';

export type Registration = 'open' | 'invite' | 'closed';

export interface InviteDeps {
  storage: Storage;
  box: SecretBox;
  clock: Clock;
  mailer: Mailer;
  logger: Logger;
  publicBaseUrl: string;
  ttlMs: number;
  /** Whether mail leaves the service (SMTP) or waits in the outbox. */
  delivery: 'smtp' | 'outbox';
}

export interface SentLink {
  link: string;
  expires_at: string;
  /** `failed`: the mail could not be sent (logged); the link still works. */
  delivery: 'smtp' | 'outbox' | 'failed';
}

export interface InviteView {
  id: number;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  customer_id: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export class Invites {
  constructor(private readonly deps: InviteDeps) {}

  /** Invites `email` (409 when it already has an account); mails the link and returns it. */
  async invite(rawEmail: string): Promise<InviteView & SentLink> {
    const email = normalizeEmail(rawEmail);
    const { db } = this.deps.storage;
    const existing = await db.selectFrom('customers').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new AppError('CONFLICT', 'An account with this email already exists; send it a password-set link instead');
    const token = SecretBox.token();
    const now = this.deps.clock.nowMs();
    const expiresAt = now + this.deps.ttlMs;
    const row = await db
      .insertInto('invites')
      .values({ email, token_hash: this.deps.box.hash('invite', token), expires_at: expiresAt, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const link = `${this.deps.publicBaseUrl}/login.html#invite=${token}&email=${encodeURIComponent(email)}`;
    const delivery = await this.mail({
      to: email,
      subject: 'You are invited to Switchyard',
      text: `You were invited to create a Switchyard account with this email address. Open this link to choose a password:\n\n${link}\n\nThe link works until ${iso(expiresAt)}.`,
    });
    return {
      id: Number(row.id),
      email,
      created_at: iso(now)!,
      expires_at: iso(expiresAt)!,
      used_at: null,
      customer_id: null,
      link,
      delivery,
    };
  }

  /** Sends; a failed send is logged and reported as `failed` (the operator still has the link to hand over). */
  private async mail(message: { to: string; subject: string; text: string }): Promise<SentLink['delivery']> {
    try {
      await this.deps.mailer.send(message);
      return this.deps.delivery;
    } catch (error) {
      this.deps.logger.error({ err: error }, 'sending a console link failed');
      return 'failed';
    }
  }

  /** Invites not yet used, newest first (expired ones included, marked by `expires_at`). */
  async list(limit = 100): Promise<InviteView[]> {
    const rows = await this.deps.storage.db.selectFrom('invites').selectAll().orderBy('id', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      id: Number(row.id),
      email: row.email,
      created_at: iso(row.created_at)!,
      expires_at: iso(row.expires_at)!,
      used_at: iso(row.used_at),
      customer_id: row.customer_id === null ? null : Number(row.customer_id),
    }));
  }

  /**
   * Uses the invite inside the account's creating transaction: the token must be live and name this email,
   * else 422 on `body.invite` and the account is not created.
   */
  async redeem(trx: Transaction<Database>, token: string, rawEmail: string, customerId: number): Promise<void> {
    const now = this.deps.clock.nowMs();
    const used = await trx
      .updateTable('invites')
      .set({ used_at: now, customer_id: customerId })
      .where('token_hash', '=', this.deps.box.hash('invite', token))
      .where('email', '=', normalizeEmail(rawEmail))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) {
      throw validationError([
        { loc: ['body', 'invite'], msg: 'This invite is invalid, expired, already used or for another email', type: 'value_error' },
      ]);
    }
  }

  /** Uses a live invite for `email`, if any (identity-provider sign-up of an invited address). */
  async redeemForEmail(trx: Transaction<Database>, rawEmail: string, customerId: number): Promise<boolean> {
    const now = this.deps.clock.nowMs();
    const pending = await trx
      .selectFrom('invites')
      .select('id')
      .where('email', '=', normalizeEmail(rawEmail))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (!pending) return false;
    await trx.updateTable('invites').set({ used_at: now, customer_id: customerId }).where('id', '=', pending.id).execute();
    return true;
  }

  /** A link that lets the customer choose a password (a reset token that lives `ttlMs`); mailed and returned. */
  async passwordSetLink(customerId: number): Promise<SentLink & { email: string }> {
    const { db } = this.deps.storage;
    const customer = await db.selectFrom('customers').select(['email', 'status']).where('id', '=', customerId).executeTakeFirst();
    if (!customer) throw new AppError('NOT_FOUND', 'No such customer');
    if (customer.status !== 'active') throw new AppError('CONFLICT', 'This account is disabled');
    const token = SecretBox.token();
    const now = this.deps.clock.nowMs();
    const expiresAt = now + this.deps.ttlMs;
    await db
      .insertInto('password_resets')
      .values({ customer_id: customerId, token_hash: this.deps.box.hash('reset', token), expires_at: expiresAt, created_at: now })
      .execute();
    const link = `${this.deps.publicBaseUrl}/login.html#token=${token}`;
    const delivery = await this.mail({
      to: customer.email,
      subject: 'Choose your Switchyard password',
      text: `Your Switchyard account is ready. Open this link to choose a password and sign in:\n\n${link}\n\nThe link works until ${iso(expiresAt)}.`,
    });
    return { email: customer.email, link, expires_at: iso(expiresAt)!, delivery };
  }
}

/** The registration mode's answer to a sign-up without an invite: 403 unless registration is open. */
export function refuseUninvited(registration: Registration): void {
  if (registration === 'closed') {
    throw new AppError('FORBIDDEN', 'Registration is closed on this service: ask its operator for an account', {
      details: { registration },
    });
  }
  if (registration === 'invite') {
    throw new AppError('FORBIDDEN', 'Registration is by invitation on this service: open the invite link you were sent', {
      details: { registration },
    });
  }
}
