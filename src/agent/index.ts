/** Agent domain composition: app-server supervisor, managed projects, event log, approvals, files. */
import path from 'node:path';
import type { Logger } from 'pino';
import type { BillingServices } from '../billing/index.js';
import type { GatewayServices } from '../gateway/index.js';
import { appServerArgs, appServerEnv } from '../appserver/launch.js';
import { AppServerSandbox } from '../appserver/sandbox.js';
import { SANDBOX_SERVICE_URL } from '../appserver/sandbox-network.js';
import { EgressProxy } from '../net/egress-proxy.js';
import { TurnNetworkGate } from './turn-network.js';
import { buildCatalog, readBundledCatalog, writeCatalog } from '../appserver/model-catalog.js';
import { AppServerSupervisor, type LaunchSpec } from '../appserver/supervisor.js';
import { ApprovalBroker } from './approvals.js';
import { ProjectEventSink } from './event-sink.js';
import type { ProjectEvents } from './events/index.js';
import { ProjectRuntime, type CustomerAgentDefaults } from './project-runtime.js';
import type { ProjectStore } from './projects/types.js';
import { codexDirs, defaultCodexBinary, hiddenServicePaths } from './runtime-config.js';
import { prepareRuntimeFiles } from './runtime-files.js';
import { RuntimeKeys } from './runtime-keys.js';
import { SecretBox } from '../accounts/secrets.js';
import { AgentViews } from './agent-views.js';
import { TurnPolicy } from './turn-policy.js';
import { WorkspaceQuota } from './workspace-quota.js';
import { TurnRules } from './turn-rules.js';
import { ThreadRouter } from './thread-router.js';
import { ThreadRepository } from './thread-repository.js';
import type { ScaleOut } from '../scale/index.js';
import type { IdentityDeps } from '../accounts/deps.js';
import { describeNetwork, SandboxSockets } from './sandbox-sockets.js';

/** What this domain takes from the composition root. */
export type AgentDeps = IdentityDeps;

export interface AgentDependencies {
  billing: BillingServices;
  gateway: GatewayServices;
  projects: ProjectStore;
  projectEvents: ProjectEvents;
  /** A customer's own agent defaults (toolbox settings, within what the operator allows); absent: the config's. */
  customerDefaults?: (customerId: number) => Promise<CustomerAgentDefaults>;
  /** Several nodes: an app-server starts only under the customer's lease; thread writes are fenced. */
  scale?: ScaleOut | null;
}

export interface AgentServices {
  runtime: ProjectRuntime;
  approvals: ApprovalBroker;
  supervisor: AppServerSupervisor;
  catalog: AgentViews;
  /** The key-policy checks every thread or turn start passes (project, direct and passthrough alike). */
  turnPolicy: TurnPolicy;
  /** The model, effort and approval checks every thread or turn start passes (project and direct alike). */
  rules: TurnRules;
  /** Thread id → owning surface (project runtime, direct threads): where each thread's app-server traffic goes. */
  router: ThreadRouter;
  /** The customer's own agent defaults (toolbox settings), when the accounts domain provides them. */
  customerDefaults?: (customerId: number) => Promise<CustomerAgentDefaults>;
  /**
   * Base URL the app-servers use to reach this service's `/v1` (their model provider). Defaults to the
   * configured public base URL; the HTTP layer sets the real listening address once it listens.
   */
  setServiceUrl(url: string): void;
  serviceUrl(): string;
  /**
   * Where the connections of the sandboxes' model sockets go: the HTTP server serving `/v1` (each connection is
   * marked with its customer, see `sandboxCustomerOf`).
   */
  serveSandboxConnections(sink: (socket: import('node:net').Socket) => void): void;
  start(): Promise<void>;
  /**
   * Rolling restart, before the HTTP listener closes (the app-servers reach the model through it): no turn starts
   * here any more; running turns get until `deadlineMs` to finish, those still running a little before it are
   * interrupted, and any that did not end by the deadline is logged as ended (`runtime/exited`, reason
   * `draining`). Then the app-servers stop and the leases are released, so another node takes the customers
   * over at once.
   */
  drain(deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Customer id under which operators' read-only view calls (permissions, skills) run; it never calls a model. */
export const CATALOGUE_CUSTOMER_ID = 0;

export async function createAgentServices(deps: AgentDeps, domains: AgentDependencies): Promise<AgentServices> {
  const { config, storage, clock, logger } = deps;
  const agentConfig = config.agent;
  const binary = agentConfig.codexBinary ?? defaultCodexBinary();
  const workspacesDir = path.join(config.env.dataDir, 'workspaces');
  const workspaceOf = (customerId: number) => path.join(workspacesDir, String(customerId));
  const log = logger.child({ domain: 'agent' });
  let serviceUrl = config.publicBaseUrl;

  const events = new ProjectEventSink(domains.projectEvents, log);
  const scale = domains.scale ?? null;
  const approvals = new ApprovalBroker(storage, events, clock, agentConfig.approvalTimeoutMs, log, scale?.fence);
  const threads = new ThreadRepository(storage, clock, scale?.fence);
  const runtimeKeys = new RuntimeKeys(storage, deps.keys, clock, new SecretBox(config.secret));
  const sandbox = await detectSandbox(config, binary, log);
  const limits = sandbox.limits;
  const { network, sockets } = sandboxNetwork(config, sandbox, log);
  const quota = limits ? new WorkspaceQuota(limits.config.workspaceQuotaBytes, workspaceOf, clock) : null;
  const turnPolicy = turnPolicyOf(deps, domains.gateway, quota);
  const rules = new TurnRules();
  const router = new ThreadRouter();
  const launch = appServerLauncher({
    config,
    binary,
    sandbox,
    scale,
    runtimeKeys,
    sockets,
    gateway: domains.gateway,
    workspaceOf,
    serviceUrl: () => serviceUrl,
  });
  const supervisor = createSupervisor({ config, clock, log, binary, launch, router, approvals, network, quota, sockets, scale, limits });
  const runtime = projectRuntime(deps, domains, {
    threads,
    approvals,
    events,
    supervisor,
    turnPolicy,
    rules,
    router,
    network,
    limits,
    log,
  });
  router.register(runtime);
  const catalog = new AgentViews({ supervisor, binary, runtimeKeys, config: agentConfig });
  bindLeases(scale, { approvals, router, runtime, supervisor });

  return {
    runtime,
    approvals,
    supervisor,
    catalog,
    turnPolicy,
    rules,
    router,
    customerDefaults: domains.customerDefaults,
    setServiceUrl(url) {
      serviceUrl = url.replace(/\/+$/, '');
    },
    serviceUrl: () => serviceUrl,
    serveSandboxConnections: (sink) => sockets.serveWith(sink),
    async start() {
      // App-servers of a previous service process are gone, and with them every dialog they had open. With
      // several nodes the others' dialogs live on: a customer's are marked lost when its lease is taken over.
      if (!scale) await approvals.markAllPendingLost();
    },
    drain: (deadlineMs) => drainAgent({ router, scale, supervisor, approvals, events, sockets, log }, deadlineMs),
    async close() {
      await supervisor.close();
      await sockets.closeAll();
      approvals.close();
      await limits?.close();
    },
  };
}

interface RuntimeParts {
  threads: ThreadRepository;
  approvals: ApprovalBroker;
  events: ProjectEventSink;
  supervisor: AppServerSupervisor;
  turnPolicy: TurnPolicy;
  rules: TurnRules;
  router: ThreadRouter;
  network: TurnNetworkGate;
  limits: AppServerSandbox['limits'];
  log: Logger;
}

/** The managed projects' surface: their threads and turns on the customer's app-server. */
function projectRuntime(deps: AgentDeps, domains: AgentDependencies, parts: RuntimeParts): ProjectRuntime {
  const agentConfig = deps.config.agent;
  return new ProjectRuntime({
    projects: domains.projects,
    threads: parts.threads,
    approvals: parts.approvals,
    events: parts.events,
    acquire: (customerId) => parts.supervisor.acquire(customerId),
    peek: (customerId) => parts.supervisor.peek(customerId),
    defaults: () => ({
      model: agentConfig.defaultModel,
      reasoningEffort: agentConfig.reasoningEffort,
      webSearch: agentConfig.webSearch,
      approvalPolicy: agentConfig.approvalPolicy,
      sandbox: agentConfig.sandbox,
    }),
    logger: parts.log,
    customerDefaults: domains.customerDefaults,
    turnPrincipals: deps.turnPrincipals,
    policy: parts.turnPolicy,
    rules: parts.rules,
    router: parts.router,
    network: parts.network,
    landlockMode: (parts.limits?.codexArgs().length ?? 0) > 0,
    subscriberCount: (projectId) => domains.projectEvents.subscriberCount(projectId),
  });
}

/** The key-policy checks of every thread and turn start (the workspace quota where the sandbox has limits). */
function turnPolicyOf(deps: AgentDeps, gateway: GatewayServices, quota: WorkspaceQuota | null): TurnPolicy {
  return new TurnPolicy({
    resolveModel: (name) => gateway.router.resolve(name)?.model.id,
    db: deps.storage.db,
    clock: deps.clock,
    workspaceQuota: quota ? (customerId) => quota.check(customerId) : undefined,
  });
}

/** Decided once, with one start-up log line saying which isolation every app-server gets. */
function detectSandbox(config: AgentDeps['config'], binary: string, log: Logger): Promise<AppServerSandbox> {
  const agentConfig = config.agent;
  return AppServerSandbox.detect(
    {
      mode: agentConfig.isolation,
      bwrap: agentConfig.isolationBwrap,
      socat: agentConfig.isolationSocat,
      uidFirst: agentConfig.isolationUidFirst,
      uidCount: agentConfig.isolationUidCount,
      hidden: hiddenServicePaths(config.env),
      codexDirs: codexDirs(binary),
      limits: agentConfig.limits,
      dataDir: path.resolve(config.env.dataDir),
    },
    log,
  );
}

/** The sandboxes' way out: the per-turn network gate, the egress proxy (when configured) and the model sockets. */
function sandboxNetwork(config: AgentDeps['config'], sandbox: AppServerSandbox, log: Logger) {
  const sandboxed = sandbox.kind === 'bubblewrap';
  const egress = config.agent.egress;
  const network = new TurnNetworkGate();
  const egressProxy =
    sandboxed && egress.mode === 'proxy'
      ? new EgressProxy(egress, log.child({ part: 'egress' }), undefined, (label) => network.refusal(Number(label.customerId)))
      : null;
  const sockets = new SandboxSockets(path.join(config.env.dataDir, 'sandbox-sockets'), egressProxy, log);
  log.info(
    {
      networkNamespace: sandboxed,
      egress: sandboxed ? egress.mode : 'uncontrolled',
      allowedDomains: sandboxed ? egress.allowedDomains.length : null,
    },
    describeNetwork(sandboxed, egress),
  );
  return { network, sockets };
}

interface LauncherParts {
  config: AgentDeps['config'];
  binary: string;
  sandbox: AppServerSandbox;
  scale: ScaleOut | null;
  runtimeKeys: RuntimeKeys;
  sockets: SandboxSockets;
  gateway: GatewayServices;
  workspaceOf: (customerId: number) => string;
  serviceUrl: () => string;
}

/** How a customer's app-server is launched: lease, runtime files, model catalog, runtime key, sandbox command. */
function appServerLauncher(parts: LauncherParts): (customerId: number) => Promise<LaunchSpec> {
  const { config, binary, sandbox, scale } = parts;
  const agentConfig = config.agent;
  const sandboxed = sandbox.kind === 'bubblewrap';
  let bundledCatalog: Promise<Awaited<ReturnType<typeof readBundledCatalog>>> | null = null;
  return async (customerId) => {
    // Refused before anything is created or issued when the sandbox the customer needs is not available.
    sandbox.check(customerId);
    // Several nodes: the customer's app-server runs only where its lease is held (503 while another node has it).
    if (scale && customerId !== CATALOGUE_CUSTOMER_ID) await scale.leases.ensureHeld(customerId);
    // What the service writes for the app-server lives in a folder of its own, bound read-only (runtime-files.ts).
    const { codexHome, runtimeDir, catalogFile } = await prepareRuntimeFiles(config.env.dataDir, customerId);
    // Read once per service process; a failed read (its timeout under load, say) is tried again at the next start.
    bundledCatalog ??= readBundledCatalog(binary).catch((error: unknown) => {
      bundledCatalog = null;
      throw error;
    });
    await writeCatalog(catalogFile, buildCatalog(await bundledCatalog, agentConfig.modelTemplate, catalogEntries(config, parts.gateway)));
    const token = customerId === CATALOGUE_CUSTOMER_ID ? '' : await parts.runtimeKeys.issue(customerId);
    // In a sandbox the service is reached through the customer's socket, bridged onto the sandbox's own loopback;
    // the read-only view runtime never calls a model and gets no way out at all.
    const bridges =
      sandboxed && customerId !== CATALOGUE_CUSTOMER_ID ? await parts.sockets.listen(customerId, sandbox.uidOf(customerId)) : null;
    const settings = {
      serviceUrl: sandboxed ? SANDBOX_SERVICE_URL : parts.serviceUrl(),
      catalogFile,
      defaultModel: agentConfig.defaultModel,
      webSearch: agentConfig.webSearch,
      reasoningEffort: agentConfig.reasoningEffort,
      approvalPolicy: agentConfig.approvalPolicy,
      sandbox: agentConfig.sandbox,
      providerRetries: agentConfig.providerRetries,
    };
    // The read-only view runtime (no customer) gets no workspace: its sandbox shows only its Codex home.
    const workspaceRoot = customerId === CATALOGUE_CUSTOMER_ID ? codexHome : parts.workspaceOf(customerId);
    const command = await sandbox.prepare(
      customerId,
      { workspaceRoot, codexHome, runtimeDir },
      binary,
      [...appServerArgs(settings), ...(sandbox.limits?.codexArgs() ?? [])],
      appServerEnv(codexHome, token),
      bridges,
    );
    return { binary: command.binary, args: command.args, env: command.env, cwd: codexHome };
  };
}

interface SupervisorParts {
  config: AgentDeps['config'];
  clock: AgentDeps['clock'];
  log: Logger;
  binary: string;
  launch: (customerId: number) => Promise<LaunchSpec>;
  router: ThreadRouter;
  approvals: ApprovalBroker;
  network: TurnNetworkGate;
  quota: WorkspaceQuota | null;
  sockets: SandboxSockets;
  scale: ScaleOut | null;
  limits: AppServerSandbox['limits'];
}

/** The app-server supervisor; its traffic and life events go to the thread router, which tells the surfaces. */
function createSupervisor(parts: SupervisorParts): AppServerSupervisor {
  const { config, router, approvals, network, quota, limits, log } = parts;
  const agentConfig = config.agent;
  // The runtime key outlives the process (one per customer, runtime-keys.ts); its sandbox socket and lease do not.
  const processEnded = async (customerId: number) => {
    if (customerId === CATALOGUE_CUSTOMER_ID) return;
    try {
      await parts.sockets.close(customerId);
    } finally {
      await parts.scale?.leases.release(customerId);
    }
  };
  const supervisor = new AppServerSupervisor(
    {
      binary: parts.binary,
      requestTimeoutMs: agentConfig.requestTimeoutMs,
      idleStopMs: agentConfig.idleStopMs,
      lineLengthMax: agentConfig.lineLengthMaxBytes,
      stopGraceMs: agentConfig.stopGraceMs,
      restartBackoffInitialMs: agentConfig.restartBackoffInitialMs,
      restartBackoffMaxMs: agentConfig.restartBackoffMaxMs,
      restartAttemptsMax: agentConfig.restartAttemptsMax,
      clientVersion: '1',
      logger: log,
      clock: parts.clock,
    },
    {
      launch: parts.launch,
      onNotification: (customerId, notification) => {
        router.handleNotification(customerId, notification);
        if (notification.method !== 'turn/completed') return;
        const turnId = (notification.params as { turn?: { id?: unknown } } | undefined)?.turn?.id;
        if (typeof turnId === 'string') network.completed(customerId, turnId);
        quota?.forget(customerId);
        if (limits?.config.endBackgroundProcessesAtTurnEnd) endLeftovers(customerId);
      },
      onServerRequest: (customerId, request) => router.handleServerRequest(customerId, request),
      onCrash: async (customerId) => {
        network.ended(customerId);
        await router.crashed(customerId);
        await approvals.markLostForCustomer(customerId);
      },
      onRestart: (_customerId, server, threadIds) => router.restarted(server, threadIds),
      onStopped: async (customerId) => {
        network.ended(customerId);
        await limits?.stopped(customerId);
        await processEnded(customerId);
      },
      onStartFailed: processEnded,
      isBusy: (customerId) => router.isBusy(customerId) || approvals.pendingCount(customerId) > 0 || router.hasListeners(customerId),
    },
  );
  // With `endBackgroundProcessesAtTurnEnd`: once no turn of the customer runs, nothing its commands started does.
  const endLeftovers = (customerId: number) =>
    setImmediate(() => {
      const pid = supervisor.peek(customerId)?.pid;
      if (pid === undefined || router.runningTurns(customerId).length > 0) return;
      void limits
        ?.endBackgroundProcesses(pid)
        .then((ended) => ended > 0 && log.info({ customerId, ended }, 'ended the processes left by the last turn'))
        .catch((error: Error) => log.warn({ err: error, customerId }, 'ending left-over processes failed'));
    });
  return supervisor;
}

/** Several nodes: what happens when this node takes a customer's lease over, or loses it. */
function bindLeases(
  scale: ScaleOut | null,
  parts: { approvals: ApprovalBroker; router: ThreadRouter; runtime: ProjectRuntime; supervisor: AppServerSupervisor },
): void {
  const { approvals, router, runtime, supervisor } = parts;
  scale?.bind({
    // Whatever was pending for the customer belonged to an app-server that no longer runs anywhere.
    onAcquired: async (customerId, previous) => {
      await approvals.markLostForCustomer(customerId);
      if (previous && !previous.released && previous.holderNode !== scale.nodeId) await router.nodeLost(customerId, previous.holderNode);
    },
    onLost: async (customerId) => {
      runtime.leaseLost(customerId);
      await approvals.abandonCustomer(customerId);
      await supervisor.stop(customerId);
    },
    inUse: (customerId) => supervisor.has(customerId),
  });
}

interface DrainParts {
  router: ThreadRouter;
  scale: ScaleOut | null;
  supervisor: AppServerSupervisor;
  approvals: ApprovalBroker;
  events: ProjectEventSink;
  sockets: SandboxSockets;
  log: Logger;
}

/** See `AgentServices.drain`. */
async function drainAgent(parts: DrainParts, deadlineMs: number): Promise<void> {
  const { router, scale, supervisor, approvals, log } = parts;
  router.refuseTurnStarts();
  scale?.leases.stopAcquiring();
  const running = () =>
    supervisor.status().flatMap(({ customerId }) => router.runningTurns(customerId).map((turn) => ({ customerId, ...turn })));
  const interruptAtMs = deadlineMs - Math.min(INTERRUPT_GRACE_MS, Math.max(deadlineMs - Date.now(), 0) / 4);
  if (running().length > 0) log.info({ turns: running().length }, 'draining: waiting for the running turns to finish');
  await waitUntil(() => running().length === 0, interruptAtMs);
  const left = running();
  if (left.length > 0) {
    log.warn({ turns: left.length }, 'drain time nearly over; interrupting the turns still running');
    for (const turn of left)
      void supervisor
        .peek(turn.customerId)
        ?.call('turn/interrupt', { threadId: turn.threadId, turnId: turn.turnId })
        .catch((error: unknown) => log.warn({ err: error, turnId: turn.turnId }, 'interrupting a turn at drain failed'));
    await waitUntil(() => running().length === 0, deadlineMs);
  }
  for (const { customerId } of supervisor.status()) {
    if (router.runningTurns(customerId).length > 0) await router.stopping(customerId, 'draining');
    await approvals.abandonCustomer(customerId);
  }
  // Every event of the ended turns is in the log before the lease that fences it goes.
  await parts.events.settled();
  await supervisor.close();
  await parts.sockets.closeAll();
  await scale?.leases.close();
}

/** The part of the drain kept for interrupting the turns still running (at most a quarter of it). */
const INTERRUPT_GRACE_MS = 5_000;

/** Resolves when `done()` holds or at `deadlineMs`, whichever comes first. */
async function waitUntil(done: () => boolean, deadlineMs: number): Promise<void> {
  while (!done() && Date.now() < deadlineMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(deadlineMs - Date.now(), 1))));
  }
}

/**
 * Every model id and alias the gateway serves (configured and persisted aliases alike), plus the agent's default
 * model; read at each process start, so an alias added later is known to the next app-server.
 */
function catalogEntries(config: AgentDeps['config'], gateway: GatewayServices): { slug: string; displayName: string }[] {
  return [
    { slug: config.agent.defaultModel, displayName: config.agent.defaultModel },
    ...gateway.listModels().map((model) => ({ slug: model.id, displayName: model.display_name || model.id })),
    ...Object.keys(config.aliases).map((alias) => ({ slug: alias, displayName: alias })),
    ...config.models.map((model) => ({ slug: model.id, displayName: model.displayName ?? model.id })),
  ];
}
