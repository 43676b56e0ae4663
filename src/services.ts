/**
 * The one composition root: builds every service once from config, storage, clock and logger. No Fastify here.
 */
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { ApiKeyService } from './accounts/api-key-service.js';
import { CustomerService } from './accounts/customer-service.js';
import { createAccountServices, type AccountServices } from './accounts/index.js';
import type { Mailer } from './accounts/mailer.js';
import { Identity } from './accounts/identity.js';
import { KeyRepository } from './accounts/key-repository.js';
import { ManagedKeys } from './accounts/managed-keys.js';
import { TurnPrincipals } from './accounts/turn-principals.js';
import { createProjectEvents, type ProjectEvents } from './agent/events/index.js';
import { FileService } from './agent/files/file-service.js';
import { createAgentServices, type AgentServices } from './agent/index.js';
import { createProjectStore } from './agent/projects/index.js';
import type { ProjectStore } from './agent/projects/types.js';
import { AccountReports } from './billing/account-reports.js';
import { createBillingServices, type BillingServices } from './billing/index.js';
import { createPaymentServices, type PaymentServices } from './billing/payments/index.js';
import { createPromotionServices, type PromotionServices } from './promotions/index.js';
import type { Alerts } from './billing/payments/ports.js';
import { createDesktopServices, type DesktopServices } from './desktop/index.js';
import { ObjectWorkspaces } from './desktop/object-workspace/workspace.js';
import { createChatbotServices, type ChatbotServices } from './chatbot/index.js';
import { createDirectServices, type DirectServices } from './direct/index.js';
import type { AppConfig } from './config/load-config.js';
import { createGatewayServices, type GatewayServices } from './gateway/index.js';
import { probeProvider } from './gateway/providers/probe.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { createMetrics, type GatewayMetrics, type ServiceMetrics } from './metrics/index.js';
import { createRedisProbe } from './metrics/redis-probe.js';
import { registerServiceGauges } from './metrics/service-gauges.js';
import { createPlatformServices, type PlatformServices } from './platform/index.js';
import { createScaleOut, type ScaleOut } from './scale/index.js';
import { checkStoreCredentials } from './scale/store-credentials.js';
import { createStorage, type Storage } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { databaseReadiness, type DatabaseReadiness } from './storage/readiness.js';
import type { IdentityDeps } from './accounts/deps.js';

/** What every domain factory receives (each declares the part it takes). */
export interface DomainDeps extends IdentityDeps {
  /** Narrow metric recorders (no prom-client types); absent where a domain is built without metrics. */
  metrics?: { gateway: GatewayMetrics };
}

export interface Services extends DomainDeps {
  billing: BillingServices;
  gateway: GatewayServices;
  projects: ProjectStore;
  projectEvents: ProjectEvents;
  agent: AgentServices;
  direct: DirectServices;
  accounts: AccountServices;
  payments: PaymentServices;
  promotions: PromotionServices;
  desktop: DesktopServices;
  objectWorkspace: ObjectWorkspaces;
  chatbot: ChatbotServices;
  /** The customer's own keys (`/api/v1/me/api-keys`). */
  apiKeys: ApiKeyService;
  /** The operator's key management (`/api/admin/keys`). */
  managedKeys: ManagedKeys;
  /** Payments, token usage, per-key usage and key health of one customer. */
  accountReports: AccountReports;
  /** Workspace files of managed projects, confined to each project's workspace. */
  projectFiles: FileService;
  /** Regional availability and release versions. */
  platform: PlatformServices;
  /** Whether the database answers and is migrated (readiness). */
  database: DatabaseReadiness;
  /** This instance's metrics registry (`/metrics`). */
  serviceMetrics: ServiceMetrics;
  /** Leases, fencing and forwarding between nodes; null on one node (`scaleOut.enabled` false). */
  scale: ScaleOut | null;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
  clock?: Clock;
  /** An already open and migrated storage (tests); otherwise opened from the config and migrated. */
  storage?: Storage;
  /** A mailer to use instead of the configured one (tests). */
  mailer?: Mailer;
  /** Customer alerts of the payment domain, instead of the accounts alerts (tests). */
  alerts?: Alerts;
}

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.password',
  '*.key',
  '*.secret',
  'req.headers.cookie',
  'headers.cookie',
  '*.token',
  '*.csrf_token',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

/** Opens the configured database (PostgreSQL, else SQLite in the data dir) and applies pending migrations. */
export async function openMigratedStorage(config: AppConfig): Promise<Storage> {
  const storage = await createStorage({
    databaseUrl: config.env.databaseUrl,
    sqlitePath: path.join(config.env.dataDir, 'switchyard.sqlite'),
  });
  try {
    await migrateToLatest(storage.db);
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}

export async function createServices(config: AppConfig, options: ServiceOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.env.logLevel);
  const clock = options.clock ?? systemClock;
  if (config.scaleOut.enabled) {
    const { databaseUrl, redisUrl } = config.env;
    await checkStoreCredentials({ databaseUrl, redisUrl, allowUnauthenticated: config.scaleOut.allowUnauthenticatedStores, logger });
  }
  // A storage handed in is already migrated by its owner (tests migrate under their own lock).
  const storage = options.storage ?? (await openMigratedStorage(config));

  const keys = new KeyRepository(config.secret, clock);
  const customers = new CustomerService(storage, keys, clock);
  const identity = new Identity(storage, keys, clock, config.env.staticToken, (error) =>
    logger.error({ err: error }, 'reading the key-change counter failed'),
  );
  const serviceMetrics = createMetrics();
  const deps: DomainDeps = {
    config,
    storage,
    logger,
    clock,
    keys,
    customers,
    identity,
    turnPrincipals: new TurnPrincipals(),
    metrics: { gateway: serviceMetrics },
  };

  const billing = await createBillingServices(deps);
  const gateway = await createGatewayServices(deps, billing);
  const projects = createProjectStore(deps);
  const scale = createScaleOut(deps);
  const projectEvents = await createProjectEvents(deps, { fence: scale?.fence });
  // Accounts created by identity-provider sign-up carry a referral code the promotions attribute (bound late).
  let promotions!: PromotionServices;
  const onSignedUp = async (customerId: number, attribution: { referralCode?: string }) => {
    if (attribution.referralCode) await promotions.attributeReferral(customerId, attribution.referralCode);
  };
  const accounts = createAccountServices(deps, { mailer: options.mailer, onSignedUp });
  const agent = await createAgentServices(deps, {
    billing,
    gateway,
    projects,
    projectEvents,
    customerDefaults: (customerId) => accounts.settings.defaultsFor(customerId),
    scale,
  });
  const direct = createDirectServices(deps, { agent, gateway, projectEvents });
  // Payments mail through the accounts mailer and raise the customer's alerts there (tests may record their own).
  const alerts: Alerts = options.alerts ?? { raise: async (customerId, alert) => void (await accounts.alerts.raise(customerId, alert)) };
  const payments = createPaymentServices(deps, { billing, mailer: accounts.mailer, alerts });
  promotions = createPromotionServices(deps, { billing, payments });
  const desktop = createDesktopServices(deps, { billing, gateway, accounts, projects, agent });
  const objectWorkspace = new ObjectWorkspaces({ storage, clock, dataDir: config.env.dataDir, config: config.desktop.objectWorkspace });
  const chatbot = createChatbotServices(deps, { billing, accounts });
  const knownModels = new Set([...config.models.map((model) => model.id), ...Object.keys(config.aliases)]);
  const knownRateLimitPlans = new Set(Object.keys(config.rateLimitPlans ?? {}));
  const apiKeys = new ApiKeyService(storage, keys, clock, {
    knownModels: () => knownModels,
    knownRateLimitPlans: () => knownRateLimitPlans,
  });
  const accountReports = new AccountReports({
    config,
    storage,
    keys,
    clock,
    walletState: (customerId) => billing.walletSummary(customerId),
    probe: (modelId) => probeProvider(config, modelId, config.billing.healthProbeTimeoutMs),
    settled: () => billing.wallet.settled(),
  });
  // A start that fails closes everything built so far (each close tolerates a part that never started), so a failed
  // start leaves no timer, pool, Redis connection or app-server behind.
  const closeAll = async () => {
    await accounts.close();
    await agent.close();
    // After the app-servers stopped: leases still held (none running) are released for the next node.
    await scale?.close();
    await projectEvents.close();
    await desktop.close();
    await gateway.close();
    // Auto top-up charges already started finish (credit or alert) before the ledger closes.
    await payments.autoTopup.idle();
    await billing.close();
    identity.close();
  };
  try {
    await identity.start();
    await billing.start();
    await gateway.start();
    await projectEvents.start();
    await agent.start();
    scale?.start();
    accounts.start();
    await desktop.start();
  } catch (error) {
    await closeAll().catch((closeError: unknown) => logger.error({ err: closeError }, 'closing after a failed start failed'));
    if (!options.storage) await storage.close();
    throw error;
  }
  const redisProbe = config.env.redisUrl ? createRedisProbe(config.env.redisUrl) : undefined;
  registerServiceGauges(serviceMetrics, {
    holdsOpen: async () =>
      Number(
        (
          await storage.db
            .selectFrom('billing_calls')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('status', '=', 'open')
            .executeTakeFirst()
        )?.n ?? 0,
      ),
    callsInFlight: () => gateway.executeDeps.calls.size,
    ledgerQueueDepth: () => billing.ledgerQueueDepth(),
    appServers: () => agent.supervisor.counts(),
    appServerCrashes: () => agent.supervisor.crashes,
    turnsRunning: () => deps.turnPrincipals.runningCount(),
    sse: () => projectEvents.stats(),
    relayRejections: () => projectEvents.relayRejections(),
    databaseUp: () =>
      storage.db
        .selectFrom('customers')
        .select('id')
        .limit(1)
        .execute()
        .then(
          () => true,
          () => false,
        ),
    pool: storage.poolStats ? () => storage.poolStats!() : undefined,
    redisUp: redisProbe ? () => redisProbe.up() : undefined,
  });
  if (scale)
    serviceMetrics.gauge('project_leases_held', 'Customer leases (app-server affinity) this node holds.', () => scale.leases.heldCount());

  return {
    ...deps,
    billing,
    gateway,
    projects,
    projectEvents,
    agent,
    direct,
    accounts,
    payments,
    promotions,
    desktop,
    objectWorkspace,
    chatbot,
    apiKeys,
    managedKeys: new ManagedKeys(storage, keys, clock),
    accountReports,
    projectFiles: new FileService({ fileSizeLimitBytes: config.agent.fileSizeLimitBytes }),
    platform: createPlatformServices(config, clock),
    database: databaseReadiness(storage),
    serviceMetrics,
    scale,
    async close() {
      await closeAll();
      redisProbe?.close();
      await storage.close();
    },
  };
}
