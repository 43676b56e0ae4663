/** The desktop client domain: one factory building every desktop service from the shared deps. */
import type { AccountServices } from '../accounts/index.js';
import type { BillingServices } from '../billing/index.js';
import type { GatewayServices } from '../gateway/index.js';
import type { AppConfig } from '../config/load-config.js';
import type { Storage } from '../storage/database.js';
import type { Clock } from '../kernel/clock.js';
import type { CustomerService } from '../accounts/customer-service.js';
import { DesktopBootstrap } from './bootstrap.js';
import { BugReports } from './bug-reports.js';
import { DesktopChat } from './chat.js';
import { VersionedDocuments } from './documents.js';
import { Presence } from './presence.js';
import { PushMessages } from './push.js';
import { Shoutbox } from './shoutbox.js';

/** What this domain takes from the composition root. */
export interface DesktopBaseDeps {
  config: AppConfig;
  storage: Storage;
  clock: Clock;
  customers: CustomerService;
}

export interface DesktopServices {
  documents: VersionedDocuments;
  bugReports: BugReports;
  presence: Presence;
  push: PushMessages;
  shoutbox: Shoutbox;
  bootstrap: DesktopBootstrap;
  chat: DesktopChat;
}

export interface DesktopDesktopBaseDeps {
  billing: Pick<BillingServices, 'walletSummary'>;
  gateway: Pick<GatewayServices, 'listModels' | 'describeModel' | 'execute'>;
  accounts: Pick<AccountServices, 'inbox'>;
}

export function createDesktopServices(deps: DesktopBaseDeps, domains: DesktopDesktopBaseDeps): DesktopServices {
  const { config, storage, clock } = deps;
  const push = new PushMessages(storage, clock);
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
      execute: (options) => domains.gateway.execute(options),
      contextMessages: 100,
    }),
  };
}
