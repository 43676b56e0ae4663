/** The desktop client domain: one factory building every desktop service from the shared deps. */
import type { AccountServices } from '../accounts/index.js';
import { SecretBox } from '../accounts/secrets.js';
import type { AgentServices } from '../agent/index.js';
import type { ProjectStore } from '../agent/projects/types.js';
import type { BillingServices } from '../billing/index.js';
import type { GatewayServices } from '../gateway/index.js';
import { DesktopBootstrap } from './bootstrap.js';
import { BugReports } from './bug-reports.js';
import type { InboundProtocol } from '../gateway/protocols/contract.js';
import { DesktopChat } from './chat.js';
import { desktopChatProtocol, type DecodedDesktopChat } from './chat-protocol.js';
import { CoderProjects } from './coder/coder-projects.js';
import { PostgresDatabases, SqliteDatabases } from './coder/managed-databases.js';
import { FreeQuota } from './chat-quota.js';
import { ChatResearch } from './chat-research.js';
import { ResearchSources } from './research-sources.js';
import { VersionedDocuments } from './documents.js';
import { Presence } from './presence.js';
import { PushMessages } from './push.js';
import { Shoutbox } from './shoutbox.js';
import { ShoutboxFeed } from './shoutbox-feed.js';
import type { BaseDeps } from '../storage/base-deps.js';
import type { IdentityDeps } from '../accounts/deps.js';

/** What this domain takes from the composition root. */
export type DesktopBaseDeps = BaseDeps & Pick<IdentityDeps, 'customers'>;

export interface DesktopServices {
  documents: VersionedDocuments;
  bugReports: BugReports;
  presence: Presence;
  push: PushMessages;
  shoutbox: Shoutbox;
  shoutboxFeed: ShoutboxFeed;
  /** Push messages live over SSE (the shoutbox's feed rules: the table is the queue, Last-Event-ID resumes). */
  pushFeed: ShoutboxFeed;
  bootstrap: DesktopBootstrap;
  chat: DesktopChat;
  /** A chat-mode message as an inbound protocol of the gateway's driver (chat-protocol.ts). */
  chatProtocol: InboundProtocol<DecodedDesktopChat>;
  coder: CoderProjects;
  chatQuota: FreeQuota;
  chatResearch: ChatResearch;
  /** Fails research analyses a stopped process left running. */
  start(): Promise<void>;
  /** Aborts running research analyses and waits until each recorded its end. */
  close(): Promise<void>;
}

export interface DesktopDomainDeps {
  billing: Pick<BillingServices, 'walletSummary' | 'wallet'>;
  gateway: Pick<GatewayServices, 'listModels' | 'describeModel' | 'driver'>;
  accounts: Pick<AccountServices, 'inbox' | 'settings'>;
  projects: Pick<ProjectStore, 'create' | 'remove'>;
  agent: {
    runtime: Pick<AgentServices['runtime'], 'isProjectBusy'>;
    router: Pick<AgentServices['router'], 'isBusy'>;
    supervisor: Pick<AgentServices['supervisor'], 'stop'>;
  };
}

/**
 * Coder databases follow the service: PostgreSQL when `desktop.coder.databaseAdminUrl` is set or the service
 * itself runs on PostgreSQL (through DATABASE_URL), otherwise a SQLite file in each project's workspace.
 */
function createCoderProjects(
  deps: Pick<DesktopBaseDeps, 'config' | 'storage' | 'clock' | 'logger'>,
  domains: DesktopDomainDeps,
): CoderProjects {
  const { config, storage } = deps;
  const settings = config.desktop.coder;
  const adminUrl = settings.databaseAdminUrl ?? (storage.dialect === 'postgres' ? config.env.databaseUrl : undefined);
  const sqlite = new SqliteDatabases();
  const postgres = adminUrl ? new PostgresDatabases(adminUrl, settings.databaseNamePrefix) : undefined;
  return new CoderProjects({
    storage,
    clock: deps.clock,
    logger: deps.logger.child({ domain: 'desktop-coder' }),
    limits: settings,
    idempotencyRetentionMs: config.billing.idempotencyRetentionMs,
    projects: domains.projects,
    engines: { forNew: postgres ?? sqlite, byName: { sqlite, postgres } },
    secrets: new SecretBox(config.secret),
    wallet: domains.billing.wallet,
    projectBusy: (customerId, projectId) => domains.agent.runtime.isProjectBusy(customerId, projectId),
    agentBusy: (customerId) => domains.agent.router.isBusy(customerId),
    stopAgent: (customerId) => domains.agent.supervisor.stop(customerId),
  });
}

export function createDesktopServices(deps: DesktopBaseDeps, domains: DesktopDomainDeps): DesktopServices {
  const { config, storage, clock } = deps;
  const push = new PushMessages(storage, clock);
  const coder = createCoderProjects(deps, domains);
  const chatConfig = config.desktop.chat;
  const chatQuota = new FreeQuota(storage, clock, config, { dailyMessages: chatConfig.freeDailyMessages, models: chatConfig.freeModels });
  const chatResearch = new ChatResearch({
    storage,
    clock,
    logger: deps.logger,
    driver: domains.gateway.driver,
    maxSections: chatConfig.researchMaxSections,
    maxOutputTokens: chatConfig.researchMaxOutputTokens,
    sources: new ResearchSources(chatConfig.researchSources),
    webSearch: (model) => domains.gateway.listModels().some((entry) => entry.id === model && entry.capabilities.web_search),
  });
  const shoutbox = new Shoutbox(storage, clock, config.desktop.shoutbox);
  const chat = new DesktopChat({
    storage,
    clock,
    defaultModel: config.agent.defaultModel,
    knownModel: (id) => domains.gateway.describeModel(id) !== undefined,
    contextMessages: chatConfig.contextMessages,
    quota: chatQuota,
    research: chatResearch,
    wallet: (customerId) => domains.billing.walletSummary(customerId),
  });
  return {
    documents: new VersionedDocuments(storage, clock, {
      maxBytes: config.desktop.documentMaxBytes,
      maxDepth: config.desktop.documentMaxDepth,
    }),
    bugReports: new BugReports(storage, clock, config.desktop.bugReportMaxBytes),
    presence: new Presence(storage, clock, config.desktop.presenceTtlSeconds),
    push,
    shoutbox,
    shoutboxFeed: new ShoutboxFeed(shoutbox, config.desktop.shoutbox),
    pushFeed: new ShoutboxFeed(push, { ...config.desktop.shoutbox, event: 'push' }),
    bootstrap: new DesktopBootstrap({
      config,
      storage,
      clock,
      customers: deps.customers,
      wallets: domains.billing,
      prices: () => domains.gateway.listModels(),
      edgeBase: (customerId) => domains.accounts.settings.edgeBaseUrl(customerId),
      inbox: domains.accounts.inbox,
      push,
      coder,
    }),
    chat,
    chatProtocol: desktopChatProtocol(chat),
    coder,
    chatQuota,
    chatResearch,
    start: async () => void (await chatResearch.recover()),
    close: () => chatResearch.close(),
  };
}
