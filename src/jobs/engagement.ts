/**
 * The mail behind the engagement preferences, and the billing events of the inbox. Every mail goes through the
 * outbox (retried when a send fails) with a one-click unsubscribe link that turns its preference off; a
 * preference that is off sends nothing.
 *
 * - `email.billing`: a receipt when a payment is credited (in the crediting transaction, once per payment), and a
 *   low-balance notice when a settlement leaves the token wallet below `engagement.lowBalanceMicros` (once per
 *   top-up: the notice is keyed by the customer's latest credited payment).
 * - `email.inboxDigest`: the weekly digest (`engagement.digestWeekday`/`digestHourUtc`, a recurring job) with the
 *   balance, the week's spend, payments, alerts and unread inbox messages; once per customer and week.
 * - `email.productUpdates`: each operator broadcast to the inbox is mailed to those who turned it on (a job per
 *   broadcast, once per customer).
 * - The inbox gets "Payment received" for every credited payment (alerts add the key and sign-in events).
 */
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { AccountServices } from '../accounts/index.js';
import type { BillingServices } from '../billing/index.js';
import type { PaymentListener } from '../billing/payments/ports.js';
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import { formatUsd } from '../kernel/money.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { JobRunner } from './runner.js';

type Executor = Kysely<Database> | Transaction<Database>;

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const usd = (micros: number) => `USD ${formatUsd(micros).replace(/(\.\d{2})\d+$/, '$1')}`;

export interface EngagementDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  logger: Logger;
  accounts: Pick<AccountServices, 'outbox' | 'settings' | 'unsubscribe' | 'inbox'>;
  billing: Pick<BillingServices, 'wallet' | 'settlementListeners'>;
  runner: Pick<JobRunner, 'define' | 'schedule' | 'poke'>;
}

/** The weekly digest's recurrence: weeks counted from the epoch (a Thursday, 00:00 UTC), shifted to the configured day and hour. */
export function digestRecurrence(weekday: number, hourUtc: number): { everyMs: number; offsetMs: number } {
  return { everyMs: WEEK_MS, offsetMs: ((weekday + 3) % 7) * DAY_MS + hourUtc * 3_600_000 };
}

export class Engagement {
  /** When each customer's balance was last checked after a settlement (one check per `billing.cacheTtlMs`). */
  private readonly checkedAt = new Map<number, number>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: EngagementDeps) {}

  /** Given to payments: the inbox entry and the receipt mail of every credited payment. */
  readonly paymentEvents: PaymentListener = { paid: (trx, payment) => this.paymentReceived(trx, payment) };

  /** Hooks into settlements and broadcasts, and defines the digest and product-update jobs. */
  install(): void {
    const { billing, accounts, runner, config } = this.deps;
    billing.settlementListeners.push((customerId) => this.track(this.afterSettlement(customerId)));
    accounts.inbox.broadcastListeners.push(async (message) => {
      await runner.schedule('engagement.product-update', String(message.id), this.deps.clock.nowMs(), message);
      runner.poke();
    });
    runner.define({
      kind: 'engagement.digest',
      every: digestRecurrence(config.engagement.digestWeekday, config.engagement.digestHourUtc),
      run: (job) => this.sendDigests(job.dueAtMs),
    });
    runner.define({
      kind: 'engagement.product-update',
      run: (job) => this.sendProductUpdate(job.payload as { id: number; title: string; body: string }),
    });
  }

  /** Waits for the balance checks this process started (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track(work: Promise<unknown>): void {
    const run = work.catch((error: unknown) => this.deps.logger.error({ err: error }, 'engagement mail failed'));
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  private async emailOf(customerId: number, executor: Executor = this.deps.storage.db): Promise<string | null> {
    const row = await executor.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirst();
    return row?.email ?? null;
  }

  private footer(customerId: number, preference: 'billing' | 'inboxDigest' | 'productUpdates', what: string) {
    const link = this.deps.accounts.unsubscribe.url(customerId, preference);
    return {
      link,
      text: `\n\n--\nYou get this mail because ${what} is on in your notification settings. Turn it off with one click: ${link}`,
    };
  }

  /** In the crediting transaction: the inbox entry, and the receipt mail when `email.billing` is on. */
  private async paymentReceived(
    trx: Transaction<Database>,
    payment: { public_id: string; customer_id: number; method: string; amount_micros: number; credit_micros: number; wallet: string },
  ): Promise<void> {
    const { accounts } = this.deps;
    const customerId = Number(payment.customer_id);
    const summary = `${usd(Number(payment.amount_micros))} by ${payment.method}; ${usd(Number(payment.credit_micros))} credited to your ${payment.wallet} wallet (order ${payment.public_id}).`;
    await accounts.inbox.notify(customerId, 'Payment received', `Thank you: ${summary}`, trx);
    if (!(await accounts.settings.mayEmail(customerId, 'billing', trx))) return;
    const to = await this.emailOf(customerId, trx);
    if (!to) return;
    const footer = this.footer(customerId, 'billing', 'billing mail');
    await accounts.outbox.send(
      {
        customerId,
        kind: 'receipt',
        dedupeKey: `receipt:${payment.public_id}`,
        to,
        subject: `Switchyard receipt: ${usd(Number(payment.amount_micros))} received`,
        text: `We received your payment: ${summary}\nYour payments and receipts: ${this.deps.config.publicBaseUrl}/dashboard.html${footer.text}`,
        unsubscribeUrl: footer.link,
        preference: 'billing',
      },
      trx,
    );
  }

  /** After a settlement: below the low-balance line, one notice per top-up when `email.billing` is on. */
  async afterSettlement(customerId: number): Promise<void> {
    const line = this.deps.config.engagement.lowBalanceMicros;
    if (line <= 0) return;
    const now = this.deps.clock.nowMs();
    if ((this.checkedAt.get(customerId) ?? -Infinity) > now - this.deps.config.billing.cacheTtlMs) return;
    if (this.checkedAt.size > 50_000) this.checkedAt.clear();
    this.checkedAt.set(customerId, now);
    const { token } = await this.deps.billing.wallet.balances(customerId);
    const available = token.balance - token.held;
    if (available >= line || !(await this.deps.accounts.settings.mayEmail(customerId, 'billing'))) return;
    const to = await this.emailOf(customerId);
    if (!to) return;
    const lastPaid = await this.deps.storage.db
      .selectFrom('payments')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('status', '=', 'paid')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    const footer = this.footer(customerId, 'billing', 'billing mail');
    await this.deps.accounts.outbox.send({
      customerId,
      kind: 'low_balance',
      dedupeKey: `low_balance:${customerId}:${lastPaid ? Number(lastPaid.id) : 0}`,
      to,
      subject: `Switchyard: your balance is low (${usd(available)})`,
      text: `Your wallet has ${usd(available)} available, below ${usd(line)}. Calls are refused once it runs out; top up at ${this.deps.config.publicBaseUrl}/dashboard.html${footer.text}`,
      unsubscribeUrl: footer.link,
      preference: 'billing',
    });
  }

  /** The weekly digest of every customer who turned `email.inboxDigest` on (once per customer and week). */
  async sendDigests(dueAtMs: number): Promise<void> {
    const since = dueAtMs - WEEK_MS;
    for (const customerId of await this.deps.accounts.settings.customersWithEmail('inboxDigest')) {
      const to = await this.emailOf(customerId);
      if (!to) continue;
      const text = await this.digestText(customerId, since, dueAtMs);
      const footer = this.footer(customerId, 'inboxDigest', 'the weekly digest');
      await this.deps.accounts.outbox.send(
        {
          customerId,
          kind: 'digest',
          dedupeKey: `digest:${customerId}:${dueAtMs}`,
          to,
          subject: `Your Switchyard week to ${new Date(dueAtMs).toISOString().slice(0, 10)}`,
          text: `${text}${footer.text}`,
          unsubscribeUrl: footer.link,
          preference: 'inboxDigest',
        },
        undefined,
        { wait: true },
      );
    }
  }

  private async digestText(customerId: number, since: number, until: number): Promise<string> {
    const db = this.deps.storage.db;
    const { token } = await this.deps.billing.wallet.balances(customerId);
    const spend = await db
      .selectFrom('billing_calls')
      .select((eb) => [eb.fn.sum<number>('cost_micros').as('cost'), eb.fn.countAll<number>().as('calls')])
      .where('customer_id', '=', customerId)
      .where('settled_at', '>=', since)
      .where('settled_at', '<', until)
      .executeTakeFirst();
    const paid = await db
      .selectFrom('payments')
      .select((eb) => eb.fn.sum<number>('amount_micros').as('total'))
      .where('customer_id', '=', customerId)
      .where('status', '=', 'paid')
      .where('credited_at', '>=', since)
      .where('credited_at', '<', until)
      .executeTakeFirst();
    const alerts = await db
      .selectFrom('account_alerts')
      .select('cause')
      .where('customer_id', '=', customerId)
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .execute();
    const inbox = await this.deps.accounts.inbox.list(customerId, 5);
    const unread = inbox.data.filter((message) => !message.read);
    return [
      `Balance: ${usd(token.balance - token.held)} available.`,
      `Spent this week: ${usd(Number(spend?.cost ?? 0))} over ${Number(spend?.calls ?? 0)} calls.`,
      `Paid this week: ${usd(Number(paid?.total ?? 0))}.`,
      `Alerts this week: ${alerts.length === 0 ? 'none' : alerts.map((alert) => alert.cause.replace(/_/g, ' ')).join(', ')}.`,
      `Unread inbox messages: ${inbox.unread_count}${unread.length > 0 ? ` (latest: ${unread.map((message) => message.title).join('; ')})` : ''}.`,
    ].join('\n');
  }

  /** One operator broadcast, mailed to every customer who turned `email.productUpdates` on (once each). */
  async sendProductUpdate(message: { id: number; title: string; body: string }): Promise<void> {
    for (const customerId of await this.deps.accounts.settings.customersWithEmail('productUpdates')) {
      const to = await this.emailOf(customerId);
      if (!to) continue;
      const footer = this.footer(customerId, 'productUpdates', 'product updates');
      await this.deps.accounts.outbox.send(
        {
          customerId,
          kind: 'product_update',
          dedupeKey: `product_update:${message.id}:${customerId}`,
          to,
          subject: message.title,
          text: `${message.body}${footer.text}`,
          unsubscribeUrl: footer.link,
          preference: 'productUpdates',
        },
        undefined,
        { wait: true },
      );
    }
  }
}
