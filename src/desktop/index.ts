/** The desktop client domain: one factory building every desktop service from the shared deps. */
import type { AccountServices } from '../accounts/index.js';
import type { BillingServices } from '../billing/index.js';
import type { GatewayServices } from '../gateway/index.js';
import type { DomainDeps } from '../services.js';
import { DesktopBootstrap } from './bootstrap.js';
import { BugReports } from './bug-reports.js';
import { execute } from '../gateway/execute.js';
import { DesktopChat } from './chat.js';
import { FreeQuota } from './chat-quota.js';
import { ChatResearch } from './chat-research.js';
import { VersionedDocuments } from './documents.js';
import { Presence } from './presence.js';
import { PushMessages } from './push.js';
import { Shoutbox } from './shoutbox.js';

export interface DesktopServices {
  documents: VersionedDocuments;
  bugReports: BugReports;
  presence: Presence;
  push: PushMessages;
  shoutbox: Shoutbox;
  bootstrap: DesktopBootstrap;
  chat: DesktopChat;
  chatQuota: FreeQuota;
  chatResearch: ChatResearch;
  /** Fails research analyses a stopped process left running. */
  start(): Promise<void>;
  /** Aborts running research analyses and waits until each recorded its end. */
  close(): Promise<void>;
}

export interface DesktopDomainDeps {
  billing: Pick<BillingServices, 'walletSummary'>;
  gateway: Pick<GatewayServices, 'listModels' | 'describeModel' | 'execute' | 'executeDeps'>;
  accounts: Pick<AccountServices, 'inbox'>;
}

export function createDesktopServices(deps: Pick<DomainDeps, 'config' | 'storage' | 'clock' | 'customers' | 'logger'>, domains: DesktopDomainDeps): DesktopServices {
  const { config, storage, clock } = deps;
  const push = new PushMessages(storage, clock);
  const chatConfig = config.desktop.chat;
  const chatQuota = new FreeQuota(storage, clock, config, { dailyMessages: chatConfig.freeDailyMessages, models: chatConfig.freeModels });
  const chatResearch = new ChatResearch({
    storage,
    clock,
    logger: deps.logger,
    execute: (options) => domains.gateway.execute(options),
    maxSections: chatConfig.researchMaxSections,
    maxOutputTokens: chatConfig.researchMaxOutputTokens,
  });
  return {
    documents: new VersionedDocuments(storage, clock, { maxBytes: config.desktop.documentMaxBytes, maxDepth: config.desktop.documentMaxDepth }),
    bugReports: new BugReports(storage, clock, config.desktop.bugReportMaxBytes),
    presence: new Presence(storage, clock, config.desktop.presenceTtlSeconds),
    push,
    shoutbox: new Shoutbox(storage, clock, config.desktop.shoutbox),
    bootstrap: new DesktopBootstrap({
      config,
      storage,
      clock,
      customers: deps.customers,
      wallets: domains.billing,
      prices: () => domains.gateway.listModels(),
      inbox: domains.accounts.inbox,
      push,
    }),
    chat: new DesktopChat({
      storage,
      clock,
      defaultModel: config.agent.defaultModel,
      knownModel: (id) => domains.gateway.describeModel(id) !== undefined,
      // A free message runs the same execute path with the quota's meter in place of the wallet's.
      execute: (options, meter) => (meter ? execute({ ...domains.gateway.executeDeps, meter }, options) : domains.gateway.execute(options)),
      contextMessages: chatConfig.contextMessages,
      quota: chatQuota,
      research: chatResearch,
      wallet: (customerId) => domains.billing.walletSummary(customerId),
    }),
    chatQuota,
    chatResearch,
    start: async () => void (await chatResearch.recover()),
    close: () => chatResearch.close(),
  };
}
