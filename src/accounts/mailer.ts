/**
 * Outgoing mail. `Mailer` is the port every domain calls; `SmtpMailer` sends through nodemailer, `LogMailer`
 * (no `mail.smtp` configured) writes one log line per mail: recipient and subject only, unless the operator
 * set `mail.logLinks` for a local set-up, in which case the text (links and tokens included) is logged too.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { MailConfig } from '../config/sections/accounts.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
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
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

export class LogMailer implements Mailer {
  constructor(
    private readonly logger: Logger,
    private readonly logLinks: boolean,
  ) {}

  async send(message: MailMessage): Promise<void> {
    if (this.logLinks)
      this.logger.info({ mail: { to: message.to, subject: message.subject, text: message.text } }, 'mail (logged, not sent)');
    else
      this.logger.info(
        { mail: { to: message.to, subject: message.subject } },
        'mail not sent: no mail.smtp configured (set mail.logLinks to log its text)',
      );
  }

  async close(): Promise<void> {}
}

export function createMailer(config: MailConfig, logger: Logger): Mailer {
  return config.smtp ? new SmtpMailer({ ...config, smtp: config.smtp }) : new LogMailer(logger, config.logLinks);
}
