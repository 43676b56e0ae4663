/**
 * What a customer reads about their own money and keys: payments (credits), token transactions and daily spend,
 * per-key usage, and the non-billable health check of a key. The routes get this instead of the database.
 */
import type { ApiKeyRow, KeyRepository } from '../accounts/key-repository.js';
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import { notFound } from '../kernel/errors.js';
import type { Storage } from '../storage/database.js';
import { activityPage, activityTotals, csvLine, CSV_COLUMNS, type ActivityFilter, type ActivityPage } from './activity.js';
import { healthReport, type DestinationProbe, type WalletState } from './health.js';
import { keyUsage, payments, tokenUsage } from './reports.js';

export interface AccountReportDeps {
  config: AppConfig;
  storage: Storage;
  keys: KeyRepository;
  clock: Clock;
  /** The wallet summary of a customer (available credit and plan). */
  walletState: (customerId: number) => Promise<WalletState>;
  /** Reaches the provider that serves a model (the gateway's providers know how). */
  probe: (modelId: string) => Promise<DestinationProbe>;
  /**
   * Resolves once this process's answered calls have settled: a customer who reads usage right after a call was
   * answered sees it (answers end before their settlement commits).
   */
  settled: () => Promise<void>;
}

export class AccountReports {
  constructor(private readonly deps: AccountReportDeps) {}

  payments(customerId: number, limit: number) {
    return payments(this.deps.storage.db, customerId, limit);
  }

  async tokenUsage(customerId: number, options: { limit: number; days: number }) {
    await this.deps.settled();
    return tokenUsage(this.deps.storage.db, customerId, this.deps.clock.nowMs(), options);
  }

  /** One page of the customer's activity (billed calls and agent turns) with the period's totals. */
  async activity(customerId: number, page: ActivityPage) {
    await this.deps.settled();
    const nowMs = this.deps.clock.nowMs();
    const db = this.deps.storage.db;
    const [found, totals] = await Promise.all([
      activityPage(db, customerId, page, nowMs),
      activityTotals(db, customerId, page.filter, nowMs),
    ]);
    return { ...found, totals };
  }

  /** The filtered activity as CSV lines (header first), newest first, at most `maxRows` entries. */
  async *activityCsv(customerId: number, filter: ActivityFilter, maxRows: number): AsyncGenerator<string> {
    await this.deps.settled();
    const nowMs = this.deps.clock.nowMs();
    yield `${CSV_COLUMNS.join(',')}\n`;
    let before: number | undefined;
    for (let left = maxRows; left > 0;) {
      const limit = Math.min(500, left);
      const page = await activityPage(this.deps.storage.db, customerId, { filter, limit, before }, nowMs);
      if (page.entries.length > 0) yield page.entries.map((entry) => `${csvLine(entry)}\n`).join('');
      left -= page.entries.length;
      if (page.next_before === null) return;
      before = page.next_before;
    }
  }

  /** Daily usage of one of the customer's keys; another customer's key is "not found". */
  async keyUsage(customerId: number, keyId: number, days: number) {
    const key = await this.ownKey(customerId, keyId);
    await this.deps.settled();
    return keyUsage(this.deps.storage.db, customerId, key.id, this.deps.clock.nowMs(), days);
  }

  /** Key, wallet and destination reachability of one of the customer's keys; nothing is billed. */
  async keyHealth(customerId: number, keyId: number, model: string | undefined) {
    const key = await this.ownKey(customerId, keyId);
    const wallet = await this.deps.walletState(customerId);
    return healthReport(this.deps.config, { key, nowMs: this.deps.clock.nowMs(), wallet, model, probe: this.deps.probe });
  }

  private async ownKey(customerId: number, keyId: number): Promise<ApiKeyRow> {
    const key = await this.deps.keys.findForCustomer(this.deps.storage.db, customerId, keyId);
    if (!key) throw notFound('API key');
    return key;
  }
}
