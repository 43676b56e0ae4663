/**
 * Outgoing mail. `Mailer` is the port every domain calls; `SmtpMailer` sends through nodemailer, `OutboxMailer`
 * (no `mail.smtp` configured) keeps each mail in the outbox the operator reads in the console.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { MailConfig } from '../config/sections/accounts.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (the outbox's List-Unsubscribe). */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(private readonly config: MailConfig & { smtp: NonNullable<MailConfig['smtp']> }) {
    const { smtp } = config;
    this.transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.user === undefined ? undefined : { user: smtp.user, pass: smtp.password ?? '' },
    });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.config.from,
      // One recipient, exactly as stored: a string would be parsed as a list or a display name (`me,victim@…`).
      to: { name: '', address: message.to },
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers,
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/**
 * Without SMTP no mail is lost: each one is written to the `held_mail` table, which the operator reads in the
 * console (`GET /api/admin/outbox`), and one log line names recipient and subject (the text too with `logLinks`).
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly logLinks: boolean,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.storage.db
      .insertInto('held_mail')
      .values({ recipient: message.to, subject: message.subject, body: message.text, created_at: this.clock.nowMs() })
      .execute();
    const mail = this.logLinks
      ? { to: message.to, subject: message.subject, text: message.text }
      : { to: message.to, subject: message.subject };
    this.logger.info({ mail }, 'mail written to the outbox (no mail.smtp configured); the operator reads it in the console');
  }

  async close(): Promise<void> {}
}

export interface OutboxEntry {
  id: number;
  to: string;
  subject: string;
  text: string;
  created_at: string;
}

/** The outbox, newest first; `to` filters on the recipient. */
export async function readOutbox(storage: Storage, query: { limit: number; beforeId?: number; to?: string }): Promise<OutboxEntry[]> {
  let select = storage.db.selectFrom('held_mail').selectAll().orderBy('id', 'desc').limit(query.limit);
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  if (query.to !== undefined) select = select.where('recipient', '=', query.to.trim().toLowerCase());
  const rows = await select.execute();
  return rows.map((row) => ({
    id: Number(row.id),
    to: row.recipient,
    subject: row.subject,
    text: row.body,
    created_at: new Date(Number(row.created_at)).toISOString(),
  }));
}

export function createMailer(config: MailConfig, deps: { storage: Storage; clock: Clock; logger: Logger }): Mailer {
  return config.smtp
    ? new SmtpMailer({ ...config, smtp: config.smtp })
    : new OutboxMailer(deps.storage, deps.clock, deps.logger, config.logLinks);
}
