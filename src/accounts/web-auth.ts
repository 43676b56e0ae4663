/**
 * Dashboard sign-in and the credentials behind it: web login (with the 2FA second step), TOTP enrolment,
 * password reset by mail, password and email changes. Brute force is counted per account and per address.
 */
import { AppError, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Logger } from 'pino';
import type { Storage } from '../storage/database.js';
import { normalizeEmail } from './customer-service.js';
import type { HumanCheckAnswer, HumanCheckService } from './human-check.js';
import type { Lockout } from './lockout.js';
import type { Mailer } from './mailer.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { SecretBox } from './secrets.js';
import type { OpenedSession, SessionService } from './sessions.js';
import { newTotpSecret, otpauthUri, verifyTotp } from './totp.js';

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const RESET_TTL_MS = 30 * 60_000;
/** How long the old address's link can undo an email change. */
export const EMAIL_UNDO_TTL_MS = 7 * 24 * 3_600_000;

export type WebLoginResult =
  { kind: 'session'; session: OpenedSession; customerId: number } | { kind: 'challenge'; challenge: string; expiresAt: number };

export interface WebAuthDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  sessions: SessionService;
  lockout: Lockout;
  humanChecks: HumanCheckService;
  mailer: Mailer;
  publicBaseUrl: string;
  /** Web-login failures of an account after which a human check is required; undefined = never. */
  humanCheckAfterFailures?: number;
  /** Whether the customer wants security mail (engagement preferences); security mail is sent regardless. */
  onPasswordChanged?: (customerId: number) => Promise<void>;
  /** A dashboard sign-in succeeded from this address (the new-network alert); failures are logged, never the caller's. */
  onSignedIn?: (customerId: number, ip: string | undefined) => Promise<void>;
}

const INVALID_CREDENTIALS = 'Invalid credentials';

export class WebAuth {
  constructor(private readonly deps: WebAuthDeps) {}

  private get db() {
    return this.deps.storage.db;
  }

  private async findByIdentifier(identifier: string) {
    const byEmail = identifier.includes('@');
    return this.db
      .selectFrom('customers')
      .select(['id', 'email', 'password_hash', 'status'])
      .where(byEmail ? 'email' : 'username', '=', byEmail ? normalizeEmail(identifier) : identifier.trim())
      .executeTakeFirst();
  }

  async webLogin(identifier: string, password: string, ip: string | undefined, humanCheck: HumanCheckAnswer): Promise<WebLoginResult> {
    const accountKey = identifier.includes('@') ? normalizeEmail(identifier) : identifier.trim();
    const { lockout } = this.deps;
    // The account's own lock refuses; an address over its limit only asks for the human check.
    await lockout.checkAccount('web-login', accountKey);
    const accountSuspect =
      this.deps.humanCheckAfterFailures !== undefined &&
      (await lockout.failures('web-login', accountKey)) >= this.deps.humanCheckAfterFailures;
    if (accountSuspect || (await lockout.addressOverLimit('web-login', ip))) await this.deps.humanChecks.verify(humanCheck);
    const row = await this.findByIdentifier(identifier);
    const ok = await verifyPassword(row?.password_hash ?? null, password);
    if (!row || !ok || row.status !== 'active') {
      await lockout.fail('web-login', accountKey, ip);
      throw new AppError('UNAUTHENTICATED', INVALID_CREDENTIALS);
    }
    await lockout.succeed('web-login', accountKey);
    const customerId = Number(row.id);
    if (await this.twoFactorEnabled(customerId)) {
      const challenge = SecretBox.token();
      const now = this.deps.clock.nowMs();
      await this.db
        .insertInto('login_challenges')
        .values({
          customer_id: customerId,
          challenge_hash: this.deps.box.hash('challenge', challenge),
          expires_at: now + CHALLENGE_TTL_MS,
          created_at: now,
        })
        .execute();
      return { kind: 'challenge', challenge, expiresAt: now + CHALLENGE_TTL_MS };
    }
    const session = await this.deps.sessions.open(customerId, { authenticated: true });
    await this.signedIn(customerId, ip);
    return { kind: 'session', session, customerId };
  }

  private async signedIn(customerId: number, ip: string | undefined): Promise<void> {
    await this.deps
      .onSignedIn?.(customerId, ip)
      .catch((error: unknown) => this.deps.logger.error({ err: error, customerId }, 'recording the sign-in network failed'));
  }

  /** Completes a web login with an authenticator code; the challenge is used once, even by a wrong code. */
  async completeTwoFactor(
    challenge: string,
    code: string,
    ip: string | undefined,
  ): Promise<{ session: OpenedSession; customerId: number }> {
    const now = this.deps.clock.nowMs();
    await this.deps.lockout.check('2fa', undefined, ip);
    const row = await this.db
      .selectFrom('login_challenges')
      .select(['id', 'customer_id'])
      .where('challenge_hash', '=', this.deps.box.hash('challenge', challenge))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) {
      await this.deps.lockout.fail('2fa', undefined, ip);
      throw new AppError('UNAUTHENTICATED', 'Unknown or expired sign-in challenge; sign in again');
    }
    const customerId = Number(row.customer_id);
    await this.deps.lockout.check('2fa', String(customerId), ip);
    if (!(await this.acceptCode(customerId, code))) {
      await this.deps.lockout.fail('2fa', String(customerId), ip);
      throw new AppError('UNAUTHENTICATED', 'Invalid authenticator code');
    }
    const used = await this.db
      .updateTable('login_challenges')
      .set({ used_at: now })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw new AppError('UNAUTHENTICATED', 'Unknown or expired sign-in challenge; sign in again');
    await this.deps.lockout.succeed('2fa', String(customerId));
    const session = await this.deps.sessions.open(customerId, { authenticated: true });
    await this.signedIn(customerId, ip);
    return { session, customerId };
  }

  // ---- TOTP ------------------------------------------------------------------------------------------------

  async twoFactorEnabled(customerId: number): Promise<boolean> {
    const row = await this.db.selectFrom('totp_credentials').select('enabled_at').where('customer_id', '=', customerId).executeTakeFirst();
    return row?.enabled_at !== null && row?.enabled_at !== undefined;
  }

  /** A new secret (replacing a pending one); not active until `enable`. */
  async setupTwoFactor(customerId: number): Promise<{ secret: string; otpauth_uri: string }> {
    if (await this.twoFactorEnabled(customerId))
      throw new AppError('CONFLICT', 'Two-factor authentication is already enabled; disable it first');
    const customer = await this.db.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirstOrThrow();
    const secret = newTotpSecret();
    const sealed = this.deps.box.encrypt('totp', secret);
    const now = this.deps.clock.nowMs();
    await this.db.deleteFrom('totp_credentials').where('customer_id', '=', customerId).execute();
    await this.db
      .insertInto('totp_credentials')
      .values({ customer_id: customerId, secret_enc: sealed, enabled_at: null, last_step: null, created_at: now })
      .execute();
    return { secret, otpauth_uri: otpauthUri(secret, customer.email) };
  }

  /** Turns 2FA on: the account's password and a current code of the pending secret. */
  async enableTwoFactor(customerId: number, code: string, password: string, ip: string | undefined): Promise<void> {
    const row = await this.db.selectFrom('totp_credentials').select('enabled_at').where('customer_id', '=', customerId).executeTakeFirst();
    if (!row) throw new AppError('CONFLICT', 'Start with POST /api/v1/me/2fa/setup');
    if (row.enabled_at !== null) throw new AppError('CONFLICT', 'Two-factor authentication is already enabled');
    await this.requirePassword(customerId, password);
    await this.deps.lockout.check('2fa', String(customerId), ip);
    if (!(await this.acceptCode(customerId, code, true))) {
      await this.deps.lockout.fail('2fa', String(customerId), ip);
      throw validationError([{ loc: ['body', 'code'], msg: 'Invalid authenticator code', type: 'value_error' }]);
    }
    await this.db
      .updateTable('totp_credentials')
      .set({ enabled_at: this.deps.clock.nowMs() })
      .where('customer_id', '=', customerId)
      .execute();
  }

  async disableTwoFactor(customerId: number, proof: { code?: string; password?: string }, ip: string | undefined): Promise<void> {
    if (!(await this.twoFactorEnabled(customerId))) throw new AppError('CONFLICT', 'Two-factor authentication is not enabled');
    await this.deps.lockout.check('2fa', String(customerId), ip);
    let ok = false;
    if (proof.code !== undefined) ok = await this.acceptCode(customerId, proof.code);
    else if (proof.password !== undefined) {
      const row = await this.db.selectFrom('customers').select('password_hash').where('id', '=', customerId).executeTakeFirstOrThrow();
      ok = await verifyPassword(row.password_hash, proof.password);
    } else throw validationError([{ loc: ['body', 'code'], msg: 'Give the authenticator code or the password', type: 'missing' }]);
    if (!ok) {
      await this.deps.lockout.fail('2fa', String(customerId), ip);
      throw validationError([{ loc: ['body', proof.code !== undefined ? 'code' : 'password'], msg: 'Not accepted', type: 'value_error' }]);
    }
    await this.db.deleteFrom('totp_credentials').where('customer_id', '=', customerId).execute();
  }

  /**
   * True when the code matches step T-1, T or T+1 and that step is later than the last accepted one; the step
   * is recorded with a conditional update, so the same code is accepted once even by concurrent requests.
   */
  private async acceptCode(customerId: number, code: string, pending = false): Promise<boolean> {
    const row = await this.db
      .selectFrom('totp_credentials')
      .select(['secret_enc', 'enabled_at', 'last_step'])
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row || (row.enabled_at === null && !pending)) return false;
    const step = verifyTotp(this.deps.box.decrypt('totp', row.secret_enc), code, this.deps.clock.nowMs());
    if (step === null) return false;
    if (row.last_step !== null && step <= Number(row.last_step)) return false;
    let update = this.db.updateTable('totp_credentials').set({ last_step: step }).where('customer_id', '=', customerId);
    update = row.last_step === null ? update.where('last_step', 'is', null) : update.where('last_step', '=', row.last_step);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  // ---- Password reset ------------------------------------------------------------------------------------

  /**
   * Always the same answer. For a known, active account a 256-bit token is stored hashed and the link is
   * mailed off the request path, so known and unknown addresses take the same time.
   */
  async requestPasswordReset(email: string, ip: string | undefined): Promise<void> {
    const normalized = normalizeEmail(email);
    await this.deps.lockout.check('reset', normalized, ip);
    await this.deps.lockout.fail('reset', normalized, ip);
    const token = SecretBox.token();
    const tokenHash = this.deps.box.hash('reset', token);
    const row = await this.db.selectFrom('customers').select(['id', 'status', 'email']).where('email', '=', normalized).executeTakeFirst();
    if (!row || row.status !== 'active') return;
    const now = this.deps.clock.nowMs();
    await this.db
      .insertInto('password_resets')
      .values({ customer_id: row.id, token_hash: tokenHash, expires_at: now + RESET_TTL_MS, created_at: now })
      .execute();
    const link = `${this.deps.publicBaseUrl}/login.html#token=${token}`;
    void this.deps.mailer
      .send({
        to: row.email,
        subject: 'Reset your Switchyard password',
        text: `Someone asked to reset the password of this account. Open this link within 30 minutes to choose a new one:\n\n${link}\n\nIf it was not you, ignore this mail.`,
      })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'sending the password-reset mail failed'));
  }

  /** Sets the new password, ends every dashboard session; API keys keep working. */
  async confirmPasswordReset(token: string, password: string, ip: string | undefined): Promise<number> {
    await this.deps.lockout.check('reset-confirm', undefined, ip);
    const now = this.deps.clock.nowMs();
    const passwordHash = await hashPassword(password);
    const customerId = await this.db.transaction().execute(async (trx) => {
      const used = await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('token_hash', '=', this.deps.box.hash('reset', token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('customer_id')
        .executeTakeFirst();
      if (!used) return null;
      await trx.updateTable('customers').set({ password_hash: passwordHash }).where('id', '=', used.customer_id).execute();
      // Every other pending link of the account dies with this one.
      await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('customer_id', '=', used.customer_id)
        .where('used_at', 'is', null)
        .execute();
      return Number(used.customer_id);
    });
    if (customerId === null) {
      await this.deps.lockout.fail('reset-confirm', undefined, ip);
      throw validationError([{ loc: ['body', 'token'], msg: 'This reset link is invalid, expired or already used', type: 'value_error' }]);
    }
    await this.deps.sessions.endAll(customerId);
    return customerId;
  }

  // ---- Settings that touch credentials ------------------------------------------------------------------

  /** The account's password, checked with the per-account failure count (422 on `body.password` when wrong). */
  async requirePassword(customerId: number, password: string): Promise<void> {
    const row = await this.db.selectFrom('customers').select('password_hash').where('id', '=', customerId).executeTakeFirstOrThrow();
    await this.deps.lockout.check('password', String(customerId), undefined);
    if (!(await verifyPassword(row.password_hash, password))) {
      await this.deps.lockout.fail('password', String(customerId), undefined);
      throw validationError([{ loc: ['body', 'password'], msg: 'The password is wrong', type: 'value_error' }]);
    }
  }

  /**
   * Re-authentication of a dashboard session: the password, or a current authenticator code when 2FA is on.
   * The session then counts as recently signed in (credential-rules.ts).
   */
  async reauthenticate(customerId: number, sessionId: number, proof: { password?: string; code?: string }): Promise<void> {
    if (proof.code !== undefined) {
      await this.deps.lockout.check('2fa', String(customerId), undefined);
      if (!(await this.acceptCode(customerId, proof.code))) {
        await this.deps.lockout.fail('2fa', String(customerId), undefined);
        throw validationError([{ loc: ['body', 'code'], msg: 'Invalid authenticator code', type: 'value_error' }]);
      }
    } else if (proof.password !== undefined) await this.requirePassword(customerId, proof.password);
    else throw validationError([{ loc: ['body', 'password'], msg: 'Give the password or an authenticator code', type: 'missing' }]);
    await this.deps.sessions.reauthenticated(sessionId);
  }

  /**
   * Changes the password (the current one required); every other dashboard session ends. An account without a
   * password (created through the identity provider) sets its first one without `current`, from a recent sign-in.
   */
  async changePassword(customerId: number, current: string | undefined, next: string, keepSession: number | undefined): Promise<void> {
    const row = await this.db.selectFrom('customers').select('password_hash').where('id', '=', customerId).executeTakeFirstOrThrow();
    await this.deps.lockout.check('password', String(customerId), undefined);
    if (row.password_hash !== null && current === undefined) {
      throw validationError([{ loc: ['body', 'current_password'], msg: 'The current password is required', type: 'missing' }]);
    }
    if (row.password_hash !== null && !(await verifyPassword(row.password_hash, current!))) {
      await this.deps.lockout.fail('password', String(customerId), undefined);
      throw validationError([{ loc: ['body', 'current_password'], msg: 'The current password is wrong', type: 'value_error' }]);
    }
    await this.db
      .updateTable('customers')
      .set({ password_hash: await hashPassword(next) })
      .where('id', '=', customerId)
      .execute();
    await this.deps.sessions.endAll(customerId, keepSession);
  }

  /**
   * Changes the email: the password is required, and the old address is told, with a link that undoes the change
   * within 7 days. The new address is not verified yet. Returns the new address and the change's id.
   */
  async changeEmail(customerId: number, email: string, password: string): Promise<{ email: string; changeId: number }> {
    await this.requirePassword(customerId, password);
    const normalized = normalizeEmail(email);
    const taken = await this.db
      .selectFrom('customers')
      .select('id')
      .where('email', '=', normalized)
      .where('id', '!=', customerId)
      .executeTakeFirst();
    if (taken) throw new AppError('CONFLICT', 'This email is used by another account');
    const old = await this.db.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirstOrThrow();
    const token = SecretBox.token();
    const now = this.deps.clock.nowMs();
    let changeId: number;
    try {
      changeId = await this.db.transaction().execute(async (trx) => {
        await trx.updateTable('customers').set({ email: normalized, email_verified_at: null }).where('id', '=', customerId).execute();
        const row = await trx
          .insertInto('email_changes')
          .values({
            customer_id: customerId,
            old_email: old.email,
            new_email: normalized,
            token_hash: this.deps.box.hash('email-undo', token),
            expires_at: now + EMAIL_UNDO_TTL_MS,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return Number(row.id);
      });
    } catch (error) {
      if (/UNIQUE|23505|duplicate/i.test(String((error as Error).message) + String((error as { code?: string }).code))) {
        throw new AppError('CONFLICT', 'This email is used by another account');
      }
      throw error;
    }
    this.mailQuietly(
      old.email,
      'Your Switchyard email address was changed',
      `The email address of this account was changed to ${normalized}. If it was not you, open this link within 7 days to undo the change (it also signs every dashboard session out):\n\n${this.deps.publicBaseUrl}/login.html#email_undo=${token}`,
    );
    return { email: normalized, changeId };
  }

  /**
   * Undoes an email change from the link mailed to the old address (once, within 7 days): the old address comes
   * back if no other account took it meanwhile, and every dashboard session ends. Returns the customer id.
   */
  async undoEmailChange(token: string, ip: string | undefined): Promise<number> {
    await this.deps.lockout.check('email-undo', undefined, ip);
    const now = this.deps.clock.nowMs();
    const customerId = await this.db.transaction().execute(async (trx) => {
      const change = await trx
        .updateTable('email_changes')
        .set({ used_at: now })
        .where('token_hash', '=', this.deps.box.hash('email-undo', token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['customer_id', 'old_email'])
        .executeTakeFirst();
      if (!change) return null;
      const taken = await trx
        .selectFrom('customers')
        .select('id')
        .where('email', '=', change.old_email)
        .where('id', '!=', change.customer_id)
        .executeTakeFirst();
      if (taken) throw new AppError('CONFLICT', 'The old address now belongs to another account; contact support');
      await trx
        .updateTable('customers')
        .set({ email: change.old_email, email_verified_at: now })
        .where('id', '=', change.customer_id)
        .execute();
      return Number(change.customer_id);
    });
    if (customerId === null) {
      await this.deps.lockout.fail('email-undo', undefined, ip);
      throw validationError([{ loc: ['body', 'token'], msg: 'This link is invalid, expired or already used', type: 'value_error' }]);
    }
    await this.deps.sessions.endAll(customerId);
    return customerId;
  }

  private mailQuietly(to: string, subject: string, text: string): void {
    void this.deps.mailer
      .send({ to, subject, text })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, `sending the mail "${subject}" failed`));
  }
}
