/**
 * Entry: load config → open storage → build services → build HTTP app → listen; graceful shutdown on signals.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { disabledFeatures } from './config/feature-notes.js';
import { loadConfig, type AppConfig } from './config/load-config.js';
import { buildApp, type App } from './http/app.js';
import { startMetricsServer, type MetricsServer } from './metrics/server.js';
import { createServices, type ServiceOptions, type Services } from './services.js';
import { SERVICE_VERSION } from './kernel/version.js';
import { startOtlpTracing, type TracingHandle } from './telemetry/index.js';

export interface RunningService {
  app: App;
  services: Services;
  url: string;
  stop(): Promise<void>;
}

/**
 * Without SWITCHYARD_STATIC_TOKEN the first start creates a managed operator key and writes it to
 * `<dataDir>/operator-token` (mode 0600). The log names the file, never the token.
 */
export async function ensureOperatorToken(services: Services): Promise<string | undefined> {
  const { config, keys, storage, logger } = services;
  if (config.env.staticToken !== undefined) return undefined;
  const file = path.join(config.env.dataDir, 'operator-token');
  if (fs.existsSync(file)) return file;
  const issued = await keys.issue(storage.db, { customerId: null, kind: 'managed', role: 'operator', name: 'bootstrap operator' });
  fs.mkdirSync(config.env.dataDir, { recursive: true });
  fs.writeFileSync(file, `${issued.plaintext}\n`, { mode: 0o600 });
  logger.warn({ file }, 'created an operator token; read it from this file');
  return file;
}

/** Where the console and dashboard are, and one warn line per feature the configuration leaves off. */
export function logFirstStart(services: Services, tokenFile: string | undefined): void {
  const { config, logger } = services;
  const signIn = tokenFile === undefined ? 'sign in with SWITCHYARD_STATIC_TOKEN' : `sign in with the token in ${tokenFile}`;
  logger.info({ url: `${config.publicBaseUrl}/admin.html` }, `operator console: ${config.publicBaseUrl}/admin.html (${signIn})`);
  logger.info({ url: `${config.publicBaseUrl}/dashboard.html` }, `customer dashboard: ${config.publicBaseUrl}/dashboard.html`);
  for (const { feature, reason } of disabledFeatures(config)) logger.warn({ feature, reason }, `${feature} is off: ${reason}`);
}

export interface StartOptions {
  /** Listen on this port instead of PORT (0 = any free port; benchmarks and tests). */
  port?: number;
  /** Services options (logger, clock); by default everything comes from the config. */
  services?: ServiceOptions;
}

/** Starts exporting traces when an endpoint is configured (the config file's, else OTEL_EXPORTER_OTLP_ENDPOINT). */
async function startTracing(config: AppConfig): Promise<TracingHandle | undefined> {
  const endpoint = config.tracing.endpoint ?? config.env.otlpEndpoint;
  if (endpoint === undefined) return undefined;
  return startOtlpTracing({
    endpoint,
    headers: config.tracing.headers,
    serviceName: config.tracing.serviceName,
    serviceVersion: SERVICE_VERSION,
    instanceId: config.scaleOut.nodeId ?? `${os.hostname()}:${process.pid}`,
    recordContent: config.tracing.recordContent,
    sampleRatio: config.tracing.sampleRatio,
  });
}

export async function startService(config: AppConfig = loadConfig(), options: StartOptions = {}): Promise<RunningService> {
  const tracing = await startTracing(config);
  const services = await createServices(config, options.services);
  if (tracing !== undefined) services.logger.info({ recordContent: config.tracing.recordContent }, 'exporting traces');
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let address: string;
  let metricsServer: MetricsServer | undefined;
  try {
    const tokenFile = await ensureOperatorToken(services);
    app = await buildApp(services);
    // A deep accept queue so bursts of new connections wait instead of being reset (Node's default is 511).
    address = await app.listen({ port: options.port ?? config.env.port, host: config.env.host, backlog: 4096 });
    services.logger.info({ address, database: services.storage.dialect }, 'switchyard listening');
    logFirstStart(services, tokenFile);
    if (config.metrics.listen !== undefined) {
      metricsServer = await startMetricsServer(services.serviceMetrics, config.metrics.listen);
      services.logger.info({ address: metricsServer.url }, 'metrics listening');
    }
  } catch (error) {
    // A port in use or a bad metrics address: what already started (app-server supervisor, timers, pools) closes
    // before the error reaches the caller, so the process can exit instead of hanging on open handles.
    await app?.close().catch(() => undefined);
    await services
      .close()
      .catch((closeError: unknown) => services.logger.error({ err: closeError }, 'closing after a failed start failed'));
    await tracing?.shutdown().catch(() => undefined);
    throw error;
  }
  let stopping: Promise<void> | undefined;
  // Graceful drain: readiness turns 503 and project event streams get a final `reconnect` frame with their cursor.
  // No agent turn starts here any more; running turns get server.drainTimeoutMs to finish while the listener still
  // serves their model requests (those left near the deadline are interrupted and logged as ended), then the
  // app-servers stop and their leases are released. Then the listener stops accepting, in-flight requests and model
  // streams get the rest of the drain time (at least CLOSE_MIN_MS) before their connections are closed, and only
  // then do the services close (calls settle, holds release).
  const stop = () =>
    (stopping ??= (async () => {
      app.drain.begin();
      services.projectEvents.endStreams('draining');
      const deadlineMs = Date.now() + config.server.drainTimeoutMs;
      // A failure here still lets the listener and the services close (they stop whatever is left).
      await services.agent
        .drain(deadlineMs)
        .catch((error: unknown) => services.logger.error({ err: error }, 'draining agent turns failed'));
      // Streams opened while the turns finished end too.
      services.projectEvents.endStreams('draining');
      const force = setTimeout(
        () => {
          services.logger.warn({ drainTimeoutMs: config.server.drainTimeoutMs }, 'drain time over; closing the remaining connections');
          app.server.closeAllConnections();
        },
        Math.max(deadlineMs - Date.now(), Math.min(CLOSE_MIN_MS, config.server.drainTimeoutMs)),
      );
      force.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await services.close();
      await metricsServer?.close();
      // The last spans (the calls settled while closing) leave before the process ends.
      await tracing?.shutdown().catch((error: unknown) => services.logger.warn({ err: error }, 'exporting the last traces failed'));
    })());
  return { app, services, url: address, stop };
}

/** Time in-flight requests get after the agent turns drained, even when those took the whole drain time. */
const CLOSE_MIN_MS = 1_000;

/** Time the services get to close after the drain (settling calls, releasing holds, stopping app-servers). */
const CLOSE_AFTER_DRAIN_MS = 15_000;

export function installSignalHandlers(running: RunningService): void {
  // SIGHUP too: the app-servers run in process groups of their own, so a closing terminal reaches only the service.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      running.services.logger.info(
        { signal, drainTimeoutMs: running.services.config.server.drainTimeoutMs },
        'draining, then shutting down',
      );
      const timer = setTimeout(() => process.exit(1), running.services.config.server.drainTimeoutMs + CLOSE_AFTER_DRAIN_MS);
      timer.unref();
      running.stop().then(
        () => process.exit(0),
        (error) => {
          running.services.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}
