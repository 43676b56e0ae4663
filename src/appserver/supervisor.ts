/**
 * One app-server process per customer: started on first use, stopped when idle (no running turn, no pending
 * approval, no subscriber for `idleStopMs`), restarted with exponential backoff after a crash. After a crash
 * the owner is told at once (so it can mark pending approvals lost), and again once the new process is up with
 * the threads the dead one had loaded (so it can resume them).
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../kernel/clock.js';
import { AppServerClient } from './client.js';
import type { JsonRpcNotification, JsonRpcServerRequest } from './connection.js';
import { AppServerExitedError } from './errors.js';
import type { ClientMethod, ClientMethods } from './protocol.js';
import type { TransportExit } from './transport.js';

export interface LaunchSpec {
  /** The program to spawn when it is not the codex binary itself (the sandbox wrapper). */
  binary?: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface SupervisorHooks {
  launch(customerId: number): Promise<LaunchSpec>;
  onNotification(customerId: number, notification: JsonRpcNotification): void;
  onServerRequest(customerId: number, request: JsonRpcServerRequest): Promise<unknown>;
  onCrash(customerId: number, exit: TransportExit, loadedThreadIds: string[]): Promise<void>;
  onRestart(customerId: number, server: ManagedAppServer, loadedThreadIds: string[]): Promise<void>;
  /** True while the customer has a running turn, a pending approval or a live subscriber. */
  isBusy(customerId: number): boolean;
  /** The process was stopped on purpose (idle or shutdown). */
  onStopped(customerId: number): Promise<void>;
  /** A start failed before the process was up (launch or handshake); what was issued for it is withdrawn. */
  onStartFailed(customerId: number): Promise<void>;
}

export interface SupervisorOptions {
  binary: string;
  requestTimeoutMs: number;
  idleStopMs: number;
  lineLengthMax: number;
  stopGraceMs: number;
  restartBackoffInitialMs: number;
  restartBackoffMaxMs: number;
  restartAttemptsMax: number;
  clientVersion: string;
  logger: Logger;
  /** Reads activity times and runs the idle sweep and the restart backoff (a fake one in tests). */
  clock: Clock;
}

/** A running app-server of one customer, with the threads it has loaded (started or resumed). */
export class ManagedAppServer {
  readonly loadedThreads = new Set<string>();
  lastActivityMs: number;
  readonly startedAtMs: number;

  constructor(
    readonly customerId: number,
    readonly client: AppServerClient,
    private readonly clock: Clock,
  ) {
    this.startedAtMs = clock.nowMs();
    this.lastActivityMs = this.startedAtMs;
  }

  get version(): string | null {
    return this.client.version;
  }

  get pid(): number | undefined {
    return this.client.pid;
  }

  /** Notes use of the process now (the idle stop counts from the last use). */
  touch(): void {
    this.lastActivityMs = this.clock.nowMs();
  }

  call<M extends ClientMethod>(method: M, params: ClientMethods[M][0], timeoutMs?: number): Promise<ClientMethods[M][1]> {
    this.touch();
    return this.client.call(method, params, timeoutMs);
  }
}

interface Entry {
  server: ManagedAppServer | null;
  starting: Promise<ManagedAppServer> | null;
  stopping: boolean;
  restarts: number;
  consecutiveFailures: number;
  restartTimer: TimerHandle | null;
}

export interface SupervisorStatus {
  customerId: number;
  pid: number | null;
  version: string | null;
  startedAtMs: number;
  loadedThreads: number;
  restarts: number;
}

export class AppServerSupervisor {
  private readonly entries = new Map<number, Entry>();
  /** Processes on their way out (idle stop), which a new process of the same customer waits for. */
  private readonly stopping = new Map<number, Promise<void>>();
  private readonly sweepTimer: TimerHandle;
  private closed = false;
  /** App-servers that exited unexpectedly since start (metrics). */
  crashes = 0;

  constructor(
    private readonly options: SupervisorOptions,
    private readonly hooks: SupervisorHooks,
  ) {
    this.sweepTimer = options.clock
      .setInterval(() => void this.stopIdle(), Math.min(Math.max(options.idleStopMs / 4, 250), 30_000))
      .unref();
  }

  /** The customer's running app-server, starting it (or waiting for its restart) when needed. */
  async acquire(customerId: number): Promise<ManagedAppServer> {
    if (this.closed) throw new AppServerExitedError('agent runtime is shutting down');
    let entry = this.entries.get(customerId);
    if (!entry) {
      entry = { server: null, starting: null, stopping: false, restarts: 0, consecutiveFailures: 0, restartTimer: null };
      this.entries.set(customerId, entry);
    }
    if (entry.server?.client.running && !entry.stopping) {
      entry.server.touch();
      return entry.server;
    }
    if (entry.restartTimer) {
      this.options.clock.clearTimeout(entry.restartTimer);
      entry.restartTimer = null;
      const loaded = entry.server ? [...entry.server.loadedThreads] : [];
      entry.starting = this.launch(customerId, entry, loaded);
    }
    entry.starting ??= this.launch(customerId, entry, []);
    return entry.starting;
  }

  /** The running server, without starting one. */
  peek(customerId: number): ManagedAppServer | null {
    const server = this.entries.get(customerId)?.server;
    return server?.client.running ? server : null;
  }

  /** Whether the customer's app-server runs, starts or restarts here. */
  has(customerId: number): boolean {
    return this.entries.has(customerId);
  }

  /** App-servers running and starting on this node (metrics). */
  counts(): { running: number; starting: number } {
    let running = 0;
    let starting = 0;
    for (const entry of this.entries.values()) {
      if (entry.starting) starting += 1;
      else if (entry.server?.client.running) running += 1;
    }
    return { running, starting };
  }

  status(): SupervisorStatus[] {
    return [...this.entries.values()]
      .filter((entry) => entry.server?.client.running)
      .map((entry) => ({
        customerId: entry.server!.customerId,
        pid: entry.server!.pid ?? null,
        version: entry.server!.version,
        startedAtMs: entry.server!.startedAtMs,
        loadedThreads: entry.server!.loadedThreads.size,
        restarts: entry.restarts,
      }));
  }

  /**
   * Stops the customer's process. The entry leaves the map at once, so a concurrent acquire starts a fresh
   * process — but only after this one has exited, so two processes never hold the same threads.
   */
  async stop(customerId: number): Promise<void> {
    const entry = this.entries.get(customerId);
    if (!entry) return this.stopping.get(customerId);
    this.entries.delete(customerId);
    entry.stopping = true;
    this.options.clock.clearTimeout(entry.restartTimer);
    const done = (async () => {
      await entry.starting?.catch(() => undefined);
      await entry.server?.client.stop();
      await this.hooks
        .onStopped(customerId)
        .catch((error: Error) => this.options.logger.warn({ err: error, customerId }, 'stop hook failed'));
    })();
    this.stopping.set(customerId, done);
    try {
      await done;
    } finally {
      if (this.stopping.get(customerId) === done) this.stopping.delete(customerId);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.clock.clearInterval(this.sweepTimer);
    await Promise.all([...this.entries.keys()].map((customerId) => this.stop(customerId)));
    await Promise.all([...this.stopping.values()]);
  }

  private async launch(customerId: number, entry: Entry, resumeThreads: string[]): Promise<ManagedAppServer> {
    let up = false;
    try {
      await this.stopping.get(customerId);
      const spec = await this.hooks.launch(customerId);
      const log = this.options.logger.child({ customerId });
      let server: ManagedAppServer | null = null;
      const client = new AppServerClient({
        binary: spec.binary ?? this.options.binary,
        args: spec.args,
        env: spec.env,
        cwd: spec.cwd,
        requestTimeoutMs: this.options.requestTimeoutMs,
        lineLengthMax: this.options.lineLengthMax,
        stopGraceMs: this.options.stopGraceMs,
        clientName: 'switchyard',
        clientVersion: this.options.clientVersion,
        logger: log,
        onNotification: (notification) => this.hooks.onNotification(customerId, notification),
        onServerRequest: (request) => this.hooks.onServerRequest(customerId, request),
        onExit: (exit) => {
          if (server) this.handleExit(customerId, server, exit);
        },
      });
      server = new ManagedAppServer(customerId, client, this.options.clock);
      try {
        await client.start();
      } catch (error) {
        client.kill('SIGKILL');
        throw error;
      }
      log.info({ pid: client.pid, version: client.version }, 'app-server started');
      entry.server = server;
      up = true;
      entry.consecutiveFailures = 0;
      if (resumeThreads.length > 0 || entry.restarts > 0) await this.hooks.onRestart(customerId, server, resumeThreads);
      return server;
    } catch (error) {
      // Awaited before `starting` clears, so a later start of the customer never sees its fresh key revoked here.
      if (!up)
        await this.hooks
          .onStartFailed(customerId)
          .catch((hookError: Error) => this.options.logger.warn({ err: hookError, customerId }, 'start failure hook failed'));
      throw error;
    } finally {
      entry.starting = null;
    }
  }

  private handleExit(customerId: number, server: ManagedAppServer, exit: TransportExit): void {
    const entry = this.entries.get(customerId);
    if (!entry || entry.server !== server || entry.stopping || this.closed) return;
    const loaded = [...server.loadedThreads];
    this.crashes += 1;
    this.options.logger.warn({ customerId, pid: server.pid, ...exit }, 'app-server exited unexpectedly; restarting');
    void this.hooks
      .onCrash(customerId, exit, loaded)
      .catch((error: Error) => this.options.logger.error({ err: error }, 'crash handling failed'));
    this.scheduleRestart(customerId, entry, loaded);
  }

  private scheduleRestart(customerId: number, entry: Entry, loaded: string[]): void {
    if (entry.consecutiveFailures >= this.options.restartAttemptsMax) {
      this.options.logger.error({ customerId }, 'app-server keeps failing; giving up until the next use');
      this.entries.delete(customerId);
      return;
    }
    const delayMs = Math.min(this.options.restartBackoffInitialMs * 2 ** entry.consecutiveFailures, this.options.restartBackoffMaxMs);
    entry.restartTimer = this.options.clock.setTimeout(() => {
      entry.restartTimer = null;
      entry.restarts += 1;
      entry.starting = this.launch(customerId, entry, loaded);
      entry.starting.catch((error: Error) => {
        entry.consecutiveFailures += 1;
        this.options.logger.error({ customerId, err: error }, 'app-server restart failed');
        if (!entry.stopping && !this.closed) this.scheduleRestart(customerId, entry, loaded);
      });
    }, delayMs);
  }

  /**
   * Every idle customer is decided at the sweep's instant (and leaves the map at once, see `stop`), so what a
   * sweep stops does not depend on how long the stops before it took.
   */
  private async stopIdle(): Promise<void> {
    const now = this.options.clock.nowMs();
    const stops: Promise<void>[] = [];
    for (const [customerId, entry] of this.entries) {
      const server = entry.server;
      if (!server || entry.starting || entry.stopping || !server.client.running) continue;
      if (now - server.lastActivityMs < this.options.idleStopMs || this.hooks.isBusy(customerId)) continue;
      this.options.logger.info({ customerId }, 'stopping idle app-server');
      stops.push(this.stop(customerId).catch(() => undefined));
    }
    await Promise.all(stops);
  }
}
