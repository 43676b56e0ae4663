/** Small ports of the payment and promotion domains onto services built elsewhere (mail, customer alerts). */
import type { Logger } from 'pino';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface CustomerAlert {
  cause: string;
  causeKey: string;
  details?: Record<string, unknown>;
}

export interface Alerts {
  raise(customerId: number, alert: CustomerAlert): Promise<void>;
}

/** Default mailer until a real one is wired: logs the message's envelope (never its text). */
export function loggingMailer(logger: Logger): Mailer {
  return {
    async send(message) {
      logger.info({ to: message.to, subject: message.subject }, 'mail not sent: no mailer configured');
    },
  };
}

/** Default alerts until a real service is wired: a warning in the log. */
export function loggingAlerts(logger: Logger): Alerts {
  return {
    async raise(customerId, alert) {
      logger.warn({ customerId, cause: alert.cause, causeKey: alert.causeKey, details: alert.details }, 'customer alert');
    },
  };
}
