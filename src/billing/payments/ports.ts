/** Small ports of the payment and promotion domains onto services built elsewhere (mail, customer alerts). */
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
