/**
 * Mail the service sends on its own (alerts, receipts, low balance, digests, product updates) goes through the
 * outbox: each mail is a `mail_outbox` row first, then sent; a failed send stays due and the job runner's
 * `mail.retry` sends it again after a doubling delay (`jobs.retryBaseMs`, at most an hour) until it went out or
 * `jobs.mailMaxAttempts` attempts failed (then it is given up and logged). A sender claims a row by moving its
 * `next_attempt_at` ahead in one conditional update, so two nodes never send the same row, and keeps it ahead while
 * the send runs (a slow SMTP server does not make the retry job send the mail beside it). A `dedupeKey` makes
 * a mail go out at most once (a weekly digest, one low-balance notice per top-up). A mail that depends on an
 * engagement preference is dropped when the preference was turned off before it went out.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { MailOutboxTable } from '../storage/tables/timed-jobs.js';
import type { Mailer } from './mailer.js';

type Executor = Kysely<Database> | Transaction<Database>;
type OutboxRow = Selectable<MailOutboxTable>;

/** How long a claimed row is left to the sender that claimed it. */
const CLAIM_MS = 5 * 60_000;
const RETRY_MAX_MS = 3_600_000;
/** A mail stored inside a transaction is looked for after these delays (real time: the commit), then left to the retry job. */
const COMMIT_WAITS_MS = [0, 20, 100, 500, 2_000];

export interface OutboxMail {
  customerId: number | null;
  kind: string;
  dedupeKey?: string;
  to: string;
  subject: string;
  text: string;
  unsubscribeUrl?: string;
  /** The engagement preference this mail depends on: turned off before a (re)try, the mail is dropped. */
  preference?: string;
}

export interface MailOutboxOptions {
  maxAttempts: number;
  retryBaseMs: number;
  /** Whether the customer still wants mail of this preference (checked before every attempt). */
  stillWanted?: (customerId: number, preference: string) => Promise<boolean>;
}

export class MailOutbox {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly options: MailOutboxOptions,
  ) {}

  /**
   * Stores the mail and sends it. Inside a transaction the row commits with it and is sent once committed;
   * otherwise it is sent now. False when a mail with the same dedupe key exists. Never throws for a failed send.
   * `wait` (outside a transaction): returns once the send is over, so a job mailing many customers sends one mail
   * at a time instead of opening a connection per customer at once.
   */
  async send(mail: OutboxMail, executor: Executor = this.storage.db, options: { wait?: boolean } = {}): Promise<boolean> {
    const now = this.clock.nowMs();
    const inTransaction = executor.isTransaction;
    const row = await executor
      .insertInto('mail_outbox')
      .values({
        customer_id: mail.customerId,
        kind: mail.kind,
        dedupe_key: mail.dedupeKey ?? null,
        to_address: mail.to,
        subject: mail.subject,
        body_text: mail.text,
        unsubscribe_url: mail.unsubscribeUrl ?? null,
        preference: mail.preference ?? null,
        attempts: 0,
        next_attempt_at: inTransaction ? now : now + CLAIM_MS,
        last_error: null,
        sent_at: null,
        given_up_at: null,
        created_at: now,
      })
      .onConflict((conflict) => conflict.column('dedupe_key').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) return false;
    const work = inTransaction ? this.afterCommit(Number(row.id)) : this.attempt(row);
    this.track(work);
    if (options.wait && !inTransaction) await work.catch(() => undefined);
    return true;
  }

  /** Sends every due row (the `mail.retry` job); returns how many went out. */
  async retryDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = this.clock.nowMs();
      const due = await this.storage.db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('sent_at', 'is', null)
        .where('given_up_at', 'is', null)
        .where('next_attempt_at', '<=', now)
        .orderBy('id')
        .limit(50)
        .execute();
      let claimed = 0;
      for (const row of due) {
        const mine = await this.claim(row, now);
        if (!mine) continue;
        claimed += 1;
        if (await this.attempt(mine)) sent += 1;
      }
      if (claimed === 0) return sent;
    }
  }

  /** Waits for the sends this process started (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track(work: Promise<unknown>): void {
    const run = work.catch((error: unknown) => this.logger.error({ err: error }, 'mail outbox failed'));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private async afterCommit(id: number): Promise<void> {
    for (const waitMs of COMMIT_WAITS_MS) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      const row = await this.storage.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) continue;
      if (row.sent_at !== null || row.given_up_at !== null) return;
      const mine = await this.claim(row, this.clock.nowMs());
      if (mine) await this.attempt(mine);
      return;
    }
  }

  private async claim(row: OutboxRow, now: number): Promise<OutboxRow | null> {
    if (Number(row.next_attempt_at) > now) return null;
    const claimed = await this.storage.db
      .updateTable('mail_outbox')
      .set({ next_attempt_at: now + CLAIM_MS })
      .where('id', '=', row.id)
      .where('sent_at', 'is', null)
      .where('next_attempt_at', '=', row.next_attempt_at)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1 ? { ...row, next_attempt_at: now + CLAIM_MS } : null;
  }

  /**
   * Keeps the claim on a row while its send runs (renewed every third of the claim, one renewal at a time): a
   * slow SMTP server must not make the retry job send the mail a second time beside it.
   */
  private keepClaim(row: OutboxRow): { stop(): Promise<void> } {
    let claimedUntil = Number(row.next_attempt_at);
    let renewing: Promise<void> = Promise.resolve();
    const renew = async () => {
      const next = this.clock.nowMs() + CLAIM_MS;
      if (next <= claimedUntil) return;
      const result = await this.storage.db
        .updateTable('mail_outbox')
        .set({ next_attempt_at: next })
        .where('id', '=', row.id)
        .where('sent_at', 'is', null)
        .where('next_attempt_at', '=', claimedUntil)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimedUntil = next;
    };
    const timer = this.clock.setInterval(() => {
      renewing = renewing
        .then(renew)
        .catch((error: unknown) => this.logger.warn({ err: error, mailId: Number(row.id) }, 'renewing a mail claim failed'));
    }, CLAIM_MS / 3);
    timer.unref();
    return {
      stop: async () => {
        this.clock.clearInterval(timer);
        await renewing;
      },
    };
  }

  /** One send of a claimed row; true when it went out. */
  private async attempt(row: OutboxRow): Promise<boolean> {
    if (row.preference !== null && row.customer_id !== null && this.options.stillWanted) {
      if (!(await this.options.stillWanted(Number(row.customer_id), row.preference))) {
        await this.storage.db
          .updateTable('mail_outbox')
          .set({ given_up_at: this.clock.nowMs(), last_error: `preference ${row.preference} is off` })
          .where('id', '=', row.id)
          .execute();
        return false;
      }
    }
    const claim = this.keepClaim(row);
    try {
      await this.mailer.send({
        to: row.to_address,
        subject: row.subject,
        text: row.body_text,
        ...(row.unsubscribe_url === null
          ? {}
          : { headers: { 'List-Unsubscribe': `<${row.unsubscribe_url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } }),
      });
    } catch (error) {
      await claim.stop();
      const now = this.clock.nowMs();
      const attempts = Number(row.attempts) + 1;
      const givenUp = attempts >= this.options.maxAttempts;
      const message = error instanceof Error ? error.message : String(error);
      this.logger[givenUp ? 'error' : 'warn'](
        { err: error, mailId: Number(row.id), kind: row.kind, attempts },
        givenUp ? 'mail given up' : 'mail not sent; retried later',
      );
      await this.storage.db
        .updateTable('mail_outbox')
        .set({
          attempts,
          last_error: message.slice(0, 2_000),
          next_attempt_at: now + Math.min(this.options.retryBaseMs * 2 ** (attempts - 1), RETRY_MAX_MS),
          given_up_at: givenUp ? now : null,
        })
        .where('id', '=', row.id)
        .execute();
      return false;
    }
    await claim.stop();
    await this.storage.db
      .updateTable('mail_outbox')
      .set({ sent_at: this.clock.nowMs(), attempts: Number(row.attempts) + 1, last_error: null })
      .where('id', '=', row.id)
      .execute();
    return true;
  }
}
