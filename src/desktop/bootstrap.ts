/**
 * Everything the desktop app needs at start in one answer: the account behind the token (so the call also
 * verifies it), the wallet, usage of the last `days` days (billing's token transactions and daily spend),
 * inbox and push messages, coder projects with their slots, and the client release metadata from config `releases`.
 */
import { describeAccount, type EdgeBase, type PriceList } from '../accounts/account-profile.js';
import type { CustomerService } from '../accounts/customer-service.js';
import type { Inbox } from '../accounts/inbox.js';
import type { WalletSummary } from '../billing/index.js';
import { tokenUsage } from '../billing/reports.js';
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import { isAppError } from '../kernel/errors.js';
import { moneyJson } from '../kernel/money.js';
import { RELEASE_PRODUCTS, ReleaseCatalogue, type ReleaseProduct } from '../platform/releases.js';
import type { ApiKeyKind } from '../storage/tables/chassis.js';
import type { Storage } from '../storage/database.js';
import type { PushMessages } from './push.js';
import type { CoderProjects } from './coder/coder-projects.js';

export interface DesktopBootstrapDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  customers: CustomerService;
  wallets: { walletSummary(customerId: number): Promise<WalletSummary> };
  prices: PriceList;
  /** The customer's chosen edge region: its base URLs are the ones handed to the app. */
  edgeBase?: EdgeBase;
  inbox: Pick<Inbox, 'list'>;
  push: Pick<PushMessages, 'list'>;
  coder: Pick<CoderProjects, 'list'>;
}

export class DesktopBootstrap {
  private readonly releases: ReleaseCatalogue;

  constructor(private readonly deps: DesktopBootstrapDeps) {
    this.releases = new ReleaseCatalogue(deps.config.releases);
  }

  private releaseMetadata() {
    const out: Record<string, unknown> = {};
    for (const product of Object.keys(RELEASE_PRODUCTS) as ReleaseProduct[]) {
      try {
        out[product] = this.releases.status(product);
      } catch (error) {
        if (!isAppError(error) || error.code !== 'NOT_FOUND') throw error;
        out[product] = null;
      }
    }
    return out;
  }

  async load(caller: { customerId: number; keyId: number; keyKind: ApiKeyKind }, options: { days: number; limit: number }) {
    const { deps } = this;
    const now = deps.clock.nowMs();
    // The wallet summary waits for this process's answered calls to settle; usage is read after it, so a call
    // answered just before shows in both.
    const walletRead = deps.wallets.walletSummary(caller.customerId);
    const [account, wallet, usage, inbox, push, coder] = await Promise.all([
      describeAccount(
        { customers: deps.customers, wallets: deps.wallets, config: deps.config, prices: deps.prices, edgeBase: deps.edgeBase },
        caller,
      ),
      walletRead,
      walletRead.then(() => tokenUsage(deps.storage.db, caller.customerId, now, options)),
      deps.inbox.list(caller.customerId, options.limit),
      deps.push.list(caller.customerId, options.limit),
      deps.coder.list(caller.customerId),
    ]);
    const totals = usage.daily_spend.reduce(
      (sum, day) => ({
        requests: sum.requests + day.requests,
        input_tokens: sum.input_tokens + day.input_tokens,
        output_tokens: sum.output_tokens + day.output_tokens,
        spend_micros: sum.spend_micros + day.spend.micros,
      }),
      { requests: 0, input_tokens: 0, output_tokens: 0, spend_micros: 0 },
    );
    const { prices: _prices, ...accountWithoutPrices } = account;
    return {
      token: { valid: true, key_id: caller.keyId, kind: account.key.kind },
      ...accountWithoutPrices,
      wallet: {
        balance: moneyJson(wallet.balanceMicros),
        holds: moneyJson(wallet.holdsMicros),
        available: moneyJson(wallet.availableMicros),
        cash_balance: moneyJson(wallet.cashBalanceMicros),
        plan: wallet.plan,
        plan_ends_at: wallet.planEndsAt === null ? null : new Date(wallet.planEndsAt).toISOString(),
        currency: 'USD',
      },
      usage: {
        days: options.days,
        totals: {
          requests: totals.requests,
          input_tokens: totals.input_tokens,
          output_tokens: totals.output_tokens,
          spend: moneyJson(totals.spend_micros),
        },
        daily: usage.daily_spend,
        transactions: usage.transactions,
      },
      inbox: { messages: inbox.data, unread_count: inbox.unread_count },
      push: { messages: push.data },
      coder: { projects: coder.data, slots: coder.slots },
      releases: this.releaseMetadata(),
      server_time: new Date(now).toISOString(),
    };
  }
}
