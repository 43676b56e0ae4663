/**
 * The chat bot: Telegram Bot API-style webhook updates carrying commands for dashboard actions.
 *
 * A webhook call is accepted only with `X-Telegram-Bot-Api-Secret-Token` equal to the configured secret
 * (constant-time); each `update_id` is handled once (a redelivered update is acknowledged, not answered
 * again). `/balance`, `/usage` (today, UTC) and `/alerts` (the newest open alerts) answer for a linked chat
 * only; `/start`, `/help` and `/link` hand out the signed account-link URL (with an identity provider) and say how
 * to link with a one-time code from the dashboard; `/link <code>` uses such a code; `/unlink` forgets the link.
 * Answers go out as Bot API `sendMessage` calls to `<apiBaseUrl>/bot<token>/sendMessage`; without a bot token
 * the answer is returned as the webhook's response body (`{method: "sendMessage", chat_id, text}`), which the
 * Bot API also accepts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { AlertService } from '../accounts/alerts.js';
import type { WalletSummary } from '../billing/index.js';
import { tokenUsage } from '../billing/reports.js';
import type { ChatbotConfig } from '../config/sections/chatbot.js';
import type { Clock } from '../kernel/clock.js';
import { formatUsd } from '../kernel/money.js';
import type { Storage } from '../storage/database.js';
import type { ChatLinking } from './link.js';

/** An amount as the chat shows it: a dollar sign, cents always, sub-cent digits only when there are any ($1.50, -$0.000125). */
export function dollars(micros: number): string {
  const plain = formatUsd(Math.abs(micros)).replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${micros < 0 ? '-' : ''}$${plain}`;
}

export interface ChatUpdate {
  update_id: number;
  message?: { chat?: { id?: number | string }; text?: string };
  [field: string]: unknown;
}

export interface Reply {
  method: 'sendMessage';
  chat_id: string;
  text: string;
}

export interface ChatbotDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  config: ChatbotConfig;
  linking: ChatLinking;
  wallets: { walletSummary(customerId: number): Promise<WalletSummary> };
  alerts: Pick<AlertService, 'list'>;
}

const HELP = [
  'Commands:',
  '/balance – wallet balance',
  '/usage – usage today (UTC)',
  '/alerts – recent account alerts',
  '/link – connect this chat to your account (/link <code> with a code from the dashboard)',
  '/unlink – disconnect this chat',
].join('\n');

export class Chatbot {
  constructor(private readonly deps: ChatbotDeps) {}

  /** Whether `header` is the configured webhook secret (false when none is configured). */
  verifySecret(header: string | undefined): boolean {
    const secret = this.deps.config.webhookSecret;
    if (!secret || typeof header !== 'string') return false;
    const given = Buffer.from(header);
    const expected = Buffer.from(secret);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async linkedCustomer(chatId: string): Promise<number | null> {
    const row = await this.deps.storage.db
      .selectFrom('chatbot_links')
      .select('customer_id')
      .where('chat_id', '=', chatId)
      .executeTakeFirst();
    return row ? Number(row.customer_id) : null;
  }

  /** Handles one update: the reply (also sent through the Bot API when a token is configured), or null. */
  async handle(update: ChatUpdate): Promise<{ reply: Reply | null; duplicate: boolean; delivered: boolean }> {
    const first = await this.deps.storage.db
      .insertInto('chatbot_updates')
      .values({ update_id: update.update_id, received_at: this.deps.clock.nowMs() })
      .onConflict((conflict) => conflict.column('update_id').doNothing())
      .returning('update_id')
      .executeTakeFirst();
    if (!first) return { reply: null, duplicate: true, delivered: false };
    const chat = update.message?.chat?.id;
    const text = update.message?.text;
    if ((typeof chat !== 'number' && typeof chat !== 'string') || !/^-?[0-9]{1,20}$/.test(String(chat)) || typeof text !== 'string') {
      return { reply: null, duplicate: false, delivered: false };
    }
    const chatId = String(chat);
    const reply: Reply = { method: 'sendMessage', chat_id: chatId, text: await this.answer(chatId, text) };
    const delivered = await this.send(reply);
    return { reply, duplicate: false, delivered };
  }

  private linkHint(chatId: string): string {
    const byCode = 'Get a one-time code on the dashboard (Settings → Chat bot) and send /link <code> here.';
    return this.deps.linking.enabled ? `Connect your account: ${this.deps.linking.linkFor(chatId)}\nOr: ${byCode}` : byCode;
  }

  private async answer(chatId: string, text: string): Promise<string> {
    const command = (text.trim().split(/\s+/)[0] ?? '').replace(/@.*$/, '').toLowerCase();
    if (command === '/start' || command === '/help') {
      const linked = await this.linkedCustomer(chatId);
      return linked === null ? `${HELP}\n\n${this.linkHint(chatId)}` : HELP;
    }
    if (command === '/link') {
      const code = text.trim().split(/\s+/)[1];
      if (code === undefined) return this.linkHint(chatId);
      const customerId = await this.deps.linking.redeemCode(chatId, code);
      return customerId === null
        ? 'That code is unknown, used or expired. Get a new one on the dashboard (Settings → Chat bot).'
        : 'This chat is now linked to your account. Try /balance.';
    }
    if (command === '/unlink') {
      const removed = await this.deps.storage.db
        .deleteFrom('chatbot_links')
        .where('chat_id', '=', chatId)
        .returning('chat_id')
        .executeTakeFirst();
      return removed ? 'This chat is no longer linked to your account.' : 'This chat is not linked.';
    }
    if (command !== '/balance' && command !== '/usage' && command !== '/alerts') return `Unknown command.\n${HELP}`;
    const customerId = await this.linkedCustomer(chatId);
    if (customerId === null) return `This chat is not linked to an account.\n${this.linkHint(chatId)}`;
    if (command === '/balance') {
      const wallet = await this.deps.wallets.walletSummary(customerId);
      const lines = [`Balance: ${dollars(wallet.balanceMicros)}`, `Available: ${dollars(wallet.availableMicros)}`];
      if (wallet.holdsMicros > 0) lines.push(`Held for running calls: ${dollars(wallet.holdsMicros)}`);
      if (wallet.cashBalanceMicros > 0) lines.push(`Cash wallet: ${dollars(wallet.cashBalanceMicros)}`);
      if (wallet.plan) lines.push(`Plan: ${wallet.plan}`);
      return lines.join('\n');
    }
    if (command === '/usage') {
      const usage = await tokenUsage(this.deps.storage.db, customerId, this.deps.clock.nowMs(), { days: 1, limit: 1 });
      const today = usage.daily_spend.reduce(
        (sum, day) => ({
          requests: sum.requests + day.requests,
          input: sum.input + day.input_tokens,
          output: sum.output + day.output_tokens,
          spend: sum.spend + day.spend.micros,
        }),
        { requests: 0, input: 0, output: 0, spend: 0 },
      );
      return [
        `Usage today (UTC): ${today.requests} request${today.requests === 1 ? '' : 's'}`,
        `Tokens: ${today.input} in, ${today.output} out`,
        `Spend: ${dollars(today.spend)}`,
      ].join('\n');
    }
    const alerts = (await this.deps.alerts.list(customerId)).slice(0, this.deps.config.alertsLimit);
    if (alerts.length === 0) return 'No open alerts.';
    return ['Recent alerts:', ...alerts.map((alert) => `• ${alert.cause} (${alert.created_at.slice(0, 16).replace('T', ' ')} UTC)`)].join(
      '\n',
    );
  }

  /** Sends through the Bot API; false when no token is configured or the call failed (logged). */
  async send(reply: Reply): Promise<boolean> {
    const { botToken, apiBaseUrl } = this.deps.config;
    if (!botToken) return false;
    try {
      const response = await fetch(`${apiBaseUrl.replace(/\/$/, '')}/bot${botToken}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: reply.chat_id, text: reply.text }),
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (!response.ok) this.deps.logger.warn({ status: response.status }, 'chat-bot sendMessage refused');
      return response.ok;
    } catch (error) {
      this.deps.logger.warn({ err: { message: (error as Error).message } }, 'chat-bot sendMessage failed');
      return false;
    }
  }
}
