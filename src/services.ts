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
import { createPaymentServices, paymentEventsOf, PurchasePreferenceStore, type PaymentServices } from './billing/payments/index.js';
import type { SignupAttribution } from './accounts/oidc.js';
import { createPromotionServices, type PromotionServices } from './promotions/index.js';
import { createEngagement, createJobRunner, createTimedWork, type TimedWork } from './jobs/index.js';
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
import { storageGauges } from './storage/gauges.js';
import type { BaseDeps } from './storage/base-deps.js';
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
  /** The job runner and its timed work (raffle draws, alert scans, retention, auto top-ups, mail retries, engagement mail). */
  jobs: TimedWork;
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

/** Log lines wait in memory up to this size, or this long, before one write to standard output. */
const LOG_BUFFER_BYTES = 8 * 1024;
const LOG_FLUSH_MS = 100;
let standardOutput: ReturnType<typeof pino.destination> | undefined;

/**
 * Standard output, written off the request's path: lines are buffered and written asynchronously in batches (one
 * write per 16 kB, or every 100 ms), so a log line per request costs a copy into memory, not a system call on the
 * event loop. What is buffered is written synchronously when the process exits (a SIGKILL loses at most the last
 * 100 ms of lines). One destination per process, however many loggers.
 */
function bufferedStandardOutput(): ReturnType<typeof pino.destination> {
  if (standardOutput) return standardOutput;
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // A write still in flight: the kernel has those bytes already.
    }
  });
  standardOutput = destination;
  return destination;
}

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, bufferedStandardOutput());
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

/** The domains, each built once; the order is the order of what each needs from the ones before. */
type Domains = Omit<Services, keyof DomainDeps | 'database' | 'serviceMetrics' | 'close'>;

export async function createServices(config: AppConfig, options: ServiceOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.env.logLevel);
  const clock = options.clock ?? systemClock;
  if (config.scaleOut.enabled) {
    const { databaseUrl, redisUrl } = config.env;
    await checkStoreCredentials({ databaseUrl, redisUrl, allowUnauthenticated: config.scaleOut.allowUnauthenticatedStores, logger });
  }
  // A storage handed in is already migrated by its owner (tests migrate under their own lock).
  const storage = options.storage ?? (await openMigratedStorage(config));
  const serviceMetrics = createMetrics();
  const deps = identityDeps({ config, storage, logger, clock }, serviceMetrics);
  const domains = await createDomains(deps, options);
  // A start that fails closes everything built so far (each close tolerates a part that never started), so a failed
  // start leaves no timer, pool, Redis connection or app-server behind.
  const closeAll = () => closeDomains(deps, domains);
  try {
    await startDomains(deps, domains);
  } catch (error) {
    await closeAll().catch((closeError: unknown) => logger.error({ err: closeError }, 'closing after a failed start failed'));
    if (!options.storage) await storage.close();
    throw error;
  }
  const redisProbe = config.env.redisUrl ? createRedisProbe(config.env.redisUrl) : undefined;
  registerGauges(serviceMetrics, deps, domains, redisProbe);
  return {
    ...deps,
    ...domains,
    database: databaseReadiness(storage),
    serviceMetrics,
    async close() {
      await closeAll();
      redisProbe?.close();
      await storage.close();
    },
  };
}

/** Keys, customers and identity: built first, as every domain takes them. */
function identityDeps(base: BaseDeps, serviceMetrics: ServiceMetrics): DomainDeps {
  const { config, storage, clock, logger } = base;
  const keys = new KeyRepository(config.secret, clock);
  const customers = new CustomerService(storage, keys, clock);
  const identity = new Identity(storage, keys, clock, config.env.staticToken, (error) =>
    logger.error({ err: error }, 'reading the key-change counter failed'),
  );
  return { ...base, keys, customers, identity, turnPrincipals: new TurnPrincipals(), metrics: { gateway: serviceMetrics } };
}

async function createDomains(deps: DomainDeps, options: ServiceOptions): Promise<Domains> {
  const { config, storage, clock } = deps;
  const billing = await createBillingServices(deps);
  const gateway = await createGatewayServices(deps, billing);
  const projects = createProjectStore(deps);
  const scale = createScaleOut(deps);
  const runner = createJobRunner(deps, scale?.nodeId);
  const projectEvents = await createProjectEvents(deps, { fence: scale?.fence });
  const promotions = createPromotionServices(deps, {
    billing,
    scheduleRaffleDraw: (executor, raffle) => runner.schedule('raffle.draw', String(raffle.id), raffle.drawsAtMs, {}, executor),
  });
  const preferences = new PurchasePreferenceStore(storage.db, clock, config.payments.packs);
  // Accounts created by identity-provider sign-up carry a referral code the promotions attribute, and the plan or
  // amount they came for, which becomes the default pack of their first checkout.
  const onSignedUp = async (customerId: number, attribution: SignupAttribution) => {
    if (attribution.referralCode) await promotions.attributeReferral(customerId, attribution.referralCode);
    await preferences.adoptSignupPack(customerId, attribution);
  };
  const accounts = createAccountServices(deps, { mailer: options.mailer, onSignedUp });
  const customerDefaults = (customerId: number) => accounts.settings.defaultsFor(customerId);
  const agent = await createAgentServices(deps, { billing, gateway, projects, projectEvents, customerDefaults, scale });
  const direct = createDirectServices(deps, { agent, gateway, projectEvents });
  // Payments mail through the accounts mailer and raise the customer's alerts there (tests may record their own).
  const alerts: Alerts = options.alerts ?? { raise: async (customerId, alert) => void (await accounts.alerts.raise(customerId, alert)) };
  const engagement = createEngagement(deps, runner, { accounts, billing });
  const events = paymentEventsOf(promotions.paymentEvents, engagement.paymentEvents);
  const payments = createPaymentServices(deps, { billing, mailer: accounts.mailer, alerts, events, preferences });
  const jobs = createTimedWork(deps, runner, { accounts, payments, promotions, engagement });
  const desktop = createDesktopServices(deps, { billing, gateway, accounts, projects, agent });
  const objectWorkspace = new ObjectWorkspaces({ storage, clock, dataDir: config.env.dataDir, config: config.desktop.objectWorkspace });
  const chatbot = createChatbotServices(deps, { billing, accounts });
  return {
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
    jobs,
    scale,
    apiKeys: apiKeyService(deps),
    managedKeys: new ManagedKeys(storage, deps.keys, clock),
    accountReports: accountReports(deps, billing),
    projectFiles: new FileService({ fileSizeLimitBytes: config.agent.fileSizeLimitBytes }),
    platform: createPlatformServices(config, clock),
  };
}

function apiKeyService(deps: DomainDeps): ApiKeyService {
  const { config } = deps;
  const knownModels = new Set([...config.models.map((model) => model.id), ...Object.keys(config.aliases)]);
  const knownRateLimitPlans = new Set(Object.keys(config.rateLimitPlans ?? {}));
  return new ApiKeyService(deps.storage, deps.keys, deps.clock, {
    knownModels: () => knownModels,
    knownRateLimitPlans: () => knownRateLimitPlans,
  });
}

function accountReports(deps: DomainDeps, billing: BillingServices): AccountReports {
  const { config } = deps;
  return new AccountReports({
    config,
    storage: deps.storage,
    keys: deps.keys,
    clock: deps.clock,
    walletState: (customerId) => billing.walletSummary(customerId),
    probe: (modelId) => probeProvider(config, modelId, config.billing.healthProbeTimeoutMs),
    settled: () => billing.wallet.settled(),
  });
}

async function startDomains(deps: DomainDeps, domains: Domains): Promise<void> {
  await deps.identity.start();
  await domains.billing.start();
  await domains.gateway.start();
  await domains.projectEvents.start();
  await domains.agent.start();
  domains.scale?.start();
  await domains.desktop.start();
  await domains.jobs.start();
}

async function closeDomains(deps: DomainDeps, domains: Domains): Promise<void> {
  await domains.jobs.close();
  await domains.accounts.close();
  await domains.agent.close();
  // After the app-servers stopped: leases still held (none running) are released for the next node.
  await domains.scale?.close();
  await domains.projectEvents.close();
  await domains.desktop.close();
  await domains.gateway.close();
  // Auto top-up charges already started finish (credit or alert) before the ledger closes.
  await domains.payments.autoTopup.idle();
  await domains.billing.close();
  deps.identity.close();
}

function registerGauges(
  serviceMetrics: ServiceMetrics,
  deps: DomainDeps,
  domains: Domains,
  redisProbe: ReturnType<typeof createRedisProbe> | undefined,
): void {
  const { gateway, billing, agent, projectEvents, scale } = domains;
  registerServiceGauges(serviceMetrics, {
    ...storageGauges(deps.storage),
    callsInFlight: () => gateway.executeDeps.calls.size,
    ledgerQueueDepth: () => billing.ledgerQueueDepth(),
    creditReservations: () => billing.wallet.reservationFigures(),
    appServers: () => agent.supervisor.counts(),
    appServerCrashes: () => agent.supervisor.crashes,
    turnsRunning: () => deps.turnPrincipals.runningCount(),
    sse: () => projectEvents.stats(),
    relayRejections: () => projectEvents.relayRejections(),
    redisUp: redisProbe ? () => redisProbe.up() : undefined,
  });
  if (scale)
    serviceMetrics.gauge('project_leases_held', 'Customer leases (app-server affinity) this node holds.', () => scale.leases.heldCount());
}
