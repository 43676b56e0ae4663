/** Billing domain composition: ledger, wallets, rate cards, key policies, limits and the meter. */
import { customerMoney, type CustomerMoney } from './customer-money.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { newRedis } from '../kernel/redis-client.js';
import { moneyJson } from '../kernel/money.js';
import { createMeter } from './billing-meter.js';
import { IdempotencyStore, requestHash } from './idempotency.js';
import { checkLedger, createWallets, ensureSystemAccounts, walletCode, type LedgerCheck } from './ledger.js';
import { UsageWebhook } from './usage-webhook.js';
import { exportCalls, exportTurns, type ExportPage, type ExportQuery, type TurnRecord, type UsageRecord } from './usage-export.js';
import { Marketplace } from './marketplace.js';
import { NodeRegistry } from './nodes.js';
import { freeMeter, type Meter } from './meter.js';
import { RateCards, type ModelPrices } from './rate-cards.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limiter.js';
import { UnlimitedPlans } from './unlimited.js';
import { SettlementJournal } from './settlement-journal.js';
import { Wallet } from './wallet.js';
import { KyselyLedgerStore } from '../storage/ledger-store/kysely-ledger-store.js';
import type { LedgerStore } from '../storage/ledger-store/ledger-store.js';
import { lockSqliteFile } from '../storage/ledger-store/sqlite-file-lock.js';
import { SqliteThreadLedgerStore } from '../storage/ledger-store/sqlite-thread-ledger-store.js';
import { directWriter, groupCommitWriter, type WriterQueue } from '../storage/ledger-store/writer-queue.js';
import type { BaseDeps } from '../storage/base-deps.js';
import type { IdentityDeps } from '../accounts/deps.js';

/** What this domain takes from the composition root. */
export type BillingDeps = BaseDeps & Pick<IdentityDeps, 'customers' | 'keys'>;

export { freeMeter };

/**
 * Age after which the sweeper releases a hold even though a live process owns it: a last resort against a call
 * that never settles. A stream has no overall time limit, so this is far beyond any real call; the hold TTL
 * (`billing.holdTtlMs`) applies only to holds no registered process owns.
 */
export const LIVE_HOLD_BACKSTOP_MS = 24 * 3600_000;
export type { ModelPrices };

export interface WalletSummary {
  balanceMicros: number;
  holdsMicros: number;
  availableMicros: number;
  /** Active Unlimited Coding plan id, if any. */
  plan: string | null;
  planEndsAt: number | null;
  cashBalanceMicros: number;
}

export interface AdjustInput {
  customerId: number;
  amountMicros: number;
  reason: string;
  wallet: 'token' | 'cash';
  idempotencyKey: string;
}

/**
 * Told after a billed call's settlement has committed (customer id only; read the balance if needed). Called
 * without waiting: run the work asynchronously, never delay the caller, and handle your own errors.
 */
export type SettlementListener = (customerId: number) => void;

export interface BillingServices {
  /** Ledger writes queued or committing in this process (metrics). */
  ledgerQueueDepth(): number;
  meter: Meter;
  /** Listeners told after each committed settlement that charged a wallet (auto top-up). */
  settlementListeners: SettlementListener[];
  wallet: Wallet;
  rateCards: RateCards;
  unlimited: UnlimitedPlans;
  marketplace: Marketplace;
  limiter: RateLimiter;
  /** Delivers every settled call to the operator's receiver (absent unless `usageWebhook.url` is set). */
  usageWebhook?: UsageWebhook;
  /** Settled calls or agent turns of a period (and customer), a page at a time (the operator's usage export). */
  exportUsage(kind: 'calls' | 'turns', query: ExportQuery): Promise<ExportPage<UsageRecord | TurnRecord>>;
  walletSummary(customerId: number): Promise<WalletSummary>;
  /** Token and cash balances and settled spend since `sinceMs` of many customers (the console's customer list). */
  customerMoney(customerIds: readonly number[], sinceMs: number): Promise<Map<number, CustomerMoney>>;
  /**
   * Prices of a model or alias with the rate card in force (for `/v1/models` and `/api/v1/me`). Pass the
   * alias's current destination when it may differ from the configured one. Cached switches: call
   * `rateCards.refresh()` first where freshness across nodes matters (the meter does).
   */
  pricesFor(modelOrAlias: string, destinationModelId?: string): ModelPrices;
  /** Operator credit or correction (a new transfer, never an edit), idempotent per customer and key. */
  adjust(input: AdjustInput): Promise<{ status: number; body: unknown; replayed: boolean }>;
  /**
   * Heartbeat; releases the holds of gone processes, holds of unregistered processes older than the hold TTL and
   * any hold older than the backstop; returns how many.
   */
  sweep(): Promise<number>;
  checkLedger(): Promise<LedgerCheck>;
  start(): Promise<void>;
  close(): Promise<void>;
}

function writerFor(deps: BillingDeps): WriterQueue {
  const { groupCommit } = deps.config.billing;
  const batching = groupCommit.enabled && (!deps.storage.capabilities.concurrentWriters || groupCommit.onPostgres);
  return batching ? groupCommitWriter(deps.storage.db, groupCommit.maxBatch) : directWriter(deps.storage.db);
}

/** SQLite with group commit: the ledger thread; otherwise the Kysely store on the writer queue. */
function ledgerStoreFor(deps: BillingDeps, writer: WriterQueue): LedgerStore {
  const { groupCommit } = deps.config.billing;
  const file = deps.storage.sqlitePath;
  if (!groupCommit.enabled || !file) return new KyselyLedgerStore(deps.storage, writer);
  return new SqliteThreadLedgerStore(file, {
    maxBatch: groupCommit.maxBatch,
    settleWindowMs: groupCommit.settleWindowMs,
    onSyncError: (message) => deps.logger.error({ error: message }, 'syncing the ledger to disk failed'),
  });
}

/** The wallet on the chosen store, with early holds and credit reservations as configured. */
function walletFor(
  deps: BillingDeps,
  parts: { writer: WriterQueue; nodeId: string; store: LedgerStore; journal: SettlementJournal },
): Wallet {
  const { config, logger } = deps;
  return new Wallet(deps.storage, parts.writer, deps.clock, parts.nodeId, parts.store, parts.journal, {
    earlyHoldTrustMs: config.billing.earlyHoldTrustMs,
    reservations: config.billing.reservations,
    onReservationError: (error) => logger.error({ err: error }, 'a credit reservation operation failed'),
  });
}

function limiterFor(deps: BillingDeps): RateLimiter {
  const url = deps.config.env.redisUrl;
  if (!url) return new MemoryRateLimiter(deps.clock);
  return new RedisRateLimiter(newRedis(url, { maxRetriesPerRequest: 2 }), deps.clock, deps.config.billing.redisPrefix);
}

export async function createBillingServices(deps: BillingDeps): Promise<BillingServices> {
  const { config, storage, clock, logger } = deps;
  // SQLite serves one process per file: a second service on it is refused here, before it writes anything.
  const fileLock = storage.sqlitePath ? lockSqliteFile(storage.sqlitePath) : undefined;
  const writer = writerFor(deps);
  const nodeId = randomUUID();
  const store = ledgerStoreFor(deps, writer);
  const journal = new SettlementJournal(path.join(config.env.dataDir, 'settlement-journal'), nodeId, logger);
  const wallet = walletFor(deps, { writer, nodeId, store, journal });
  const nodes = new NodeRegistry(storage.db, clock, nodeId, 3 * config.billing.sweepIntervalMs);
  const rateCards = new RateCards(config, storage, clock);
  const unlimited = new UnlimitedPlans(config, storage, clock);
  const limiter = limiterFor(deps);
  const idempotency = new IdempotencyStore(storage, clock, config.billing.idempotencyRetentionMs);
  const marketplace = new Marketplace(config, storage, deps.customers, wallet, clock);
  const usageWebhook = usageWebhookOf(deps);
  deps.customers.onCustomerCreated((trx, customerId) => createWallets(trx, customerId, clock.nowMs()));

  const { settlementListeners, afterSettle } = settlementFanOut(logger);
  const meter = config.billing.enabled
    ? createMeter({ config, storage, clock, logger, wallet, rateCards, limiter, unlimited, afterSettle })
    : freeMeter;
  let sweeper: NodeJS.Timeout | undefined;

  const sweep = () => sweepHolds({ config, clock, logger, nodes, wallet });

  return {
    ledgerQueueDepth: () => writer.depth() + (store instanceof KyselyLedgerStore ? 0 : store.depth()),
    meter,
    settlementListeners,
    wallet,
    rateCards,
    unlimited,
    marketplace,
    limiter,
    usageWebhook,
    exportUsage: (kind, query) => (kind === 'calls' ? exportCalls(storage.db, query) : exportTurns(storage.db, query)),
    customerMoney: (customerIds, sinceMs) => customerMoney(deps.storage, customerIds, sinceMs),
    walletSummary: (customerId) => walletSummaryOf(wallet, unlimited, customerId),
    pricesFor(modelOrAlias, destinationModelId) {
      // Picks up switches made on other nodes without making price listings wait for the database.
      void rateCards.refresh().catch((error) => logger.warn({ err: error }, 'rate-card refresh failed'));
      return rateCards.prices(modelOrAlias, destinationModelId);
    },
    adjust: (input) => adjustWallet({ customers: deps.customers, wallet, idempotency }, input),
    sweep,
    async checkLedger() {
      // Answers do not wait for their settlements; the check sees this process's accepted ones committed.
      await wallet.settled();
      return checkLedger(storage.db);
    },
    async start() {
      await ensureSystemAccounts(storage.db, clock.nowMs());
      await rateCards.refresh(true);
      await nodes.register();
      await sweep();
      await idempotency.purgeExpired();
      sweeper = setInterval(() => {
        void sweep()
          .then(() => idempotency.purgeExpired())
          .catch((error) => logger.error({ err: error }, 'wallet sweep failed'));
      }, config.billing.sweepIntervalMs);
      sweeper.unref();
      usageWebhook?.start();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await usageWebhook?.close();
      await wallet.drained();
      await store.close();
      await writer.drain();
      // Calls cut off by the shutdown never settle: release their holds and leave the registry.
      await wallet.releaseOpen({ nodeIds: [nodeId] }).catch((error) => logger.error({ err: error }, 'releasing holds at shutdown failed'));
      await nodes.unregister().catch(() => undefined);
      journal.close();
      await limiter.close();
      fileLock?.release();
    },
  };
}

/** Settlement listeners, told off the caller's path: the reply never waits for one, and a failure is only logged. */
function settlementFanOut(logger: BillingDeps['logger']) {
  const settlementListeners: SettlementListener[] = [];
  const afterSettle = (customerId: number): void => {
    for (const listener of settlementListeners) {
      setImmediate(() => {
        try {
          listener(customerId);
        } catch (error) {
          logger.error({ err: error, customerId }, 'settlement listener failed');
        }
      });
    }
  };
  return { settlementListeners, afterSettle };
}

/** One sweep of the holds: calls of gone processes settled from their journals, stale holds released. */
async function sweepHolds(parts: {
  config: BillingDeps['config'];
  clock: BillingDeps['clock'];
  logger: BillingDeps['logger'];
  nodes: NodeRegistry;
  wallet: Wallet;
}): Promise<number> {
  const { config, clock, logger, nodes, wallet } = parts;
  await nodes.heartbeat();
  const gone = await nodes.goneNodes();
  // Calls a gone process answered but had not settled yet: charged from its journal before its holds are released.
  const journaled = await wallet.settleFromJournal(gone);
  if (journaled > 0) logger.warn({ journaled }, 'settled calls of gone processes from their settlement journal');
  const fromCrashes = await wallet.releaseOpen({ nodeIds: gone });
  await nodes.forget(gone);
  // A live process's call may stream longer than the hold TTL, and releasing its hold would free credit the
  // call then cannot collect: the TTL applies to holds no registered process owns, live ones get the backstop.
  const nowMs = clock.nowMs();
  const orphaned = await wallet.releaseOpen({ olderThanMs: nowMs - config.billing.holdTtlMs, unregistered: true });
  const expired = await wallet.releaseOpen({ olderThanMs: nowMs - Math.max(LIVE_HOLD_BACKSTOP_MS, config.billing.holdTtlMs) });
  const released = fromCrashes + orphaned + expired;
  if (released > 0) logger.warn({ fromCrashes, orphaned, expired }, 'released wallet holds');
  return released;
}

async function walletSummaryOf(wallet: Wallet, unlimited: UnlimitedPlans, customerId: number) {
  const [balances, active] = await Promise.all([wallet.balances(customerId), unlimited.active(customerId)]);
  return {
    balanceMicros: balances.token.balance,
    holdsMicros: balances.token.held,
    availableMicros: balances.token.balance - balances.token.held,
    plan: active?.plan.id ?? null,
    planEndsAt: active?.endsAt ?? null,
    cashBalanceMicros: balances.cash.balance,
  };
}

/** An operator's credit or debit of a wallet, once per idempotency key. */
async function adjustWallet(
  parts: { customers: BillingDeps['customers']; wallet: Wallet; idempotency: IdempotencyStore },
  input: Parameters<BillingServices['adjust']>[0],
): ReturnType<BillingServices['adjust']> {
  const { wallet } = parts;
  await parts.customers.get(input.customerId);
  const body = { amount_micros: input.amountMicros, reason: input.reason, wallet: input.wallet };
  return parts.idempotency.run(`customer:${input.customerId}`, input.idempotencyKey, requestHash('wallet.adjust', body), async (trx) => {
    const transferId = await wallet.creditIn(trx, {
      customerId: input.customerId,
      wallet: input.wallet,
      amountMicros: input.amountMicros,
      system: 'adjustments',
      kind: 'adjustment',
      memo: input.reason,
      reference: `idempotency:${input.idempotencyKey}`,
    });
    const account = await trx
      .selectFrom('billing_accounts')
      .select(['balance_micros', 'held_micros'])
      .where('code', '=', walletCode(input.customerId, input.wallet))
      .executeTakeFirstOrThrow();
    return {
      status: 200,
      body: {
        transfer_id: transferId,
        customer_id: input.customerId,
        wallet: input.wallet,
        amount: moneyJson(input.amountMicros),
        reason: input.reason,
        balance: moneyJson(account.balance_micros),
        available: moneyJson(account.balance_micros - account.held_micros),
      },
    };
  });
}

/** The usage webhook's outbox, when `usageWebhook.url` is configured. */
function usageWebhookOf(deps: BillingDeps): UsageWebhook | undefined {
  const { url, ...options } = deps.config.usageWebhook;
  return url === undefined
    ? undefined
    : new UsageWebhook({ db: deps.storage.db, clock: deps.clock, logger: deps.logger }, { url, ...options });
}
