/**
 * A whole service for a test: real storage (the test dialect), real services, the Fastify app driven through
 * `inject` (or listening on loopback when a real client needs a URL), a captured log, and helpers that create
 * customers and operators the way users do.
 */
import { Writable } from 'node:stream';
import path from 'node:path';
import pino from 'pino';
import { parseConfigFile, deepFreeze, type AppConfig } from '../../src/config/load-config.js';
import { loadEnv } from '../../src/config/env.js';
import type { FileConfig } from '../../src/config/file-schema.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createServices, REDACTED_PATHS, type ServiceOptions, type Services } from '../../src/services.js';
import type { Clock } from '../../src/kernel/clock.js';
import { openTestStorage, tempDir, type TestStorage } from './databases.js';

export const STATIC_TOKEN = 'static-operator-token-for-tests-0123456789';
export const TEST_SECRET = 'test-secret-0123456789-0123456789-0123456789';

export interface TestContext {
  app: App;
  services: Services;
  storage: TestStorage;
  config: AppConfig;
  dataDir: string;
  /** Every log line written during the test (JSON text). */
  logs: string[];
  /** Base URL once `listen()` was called. */
  url?: string;
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface TestContextOptions {
  config?: Partial<FileConfig> & Record<string, unknown>;
  env?: Record<string, string>;
  clock?: Clock;
  storage?: TestStorage;
  /** Recording fakes of the mail and customer-alert ports (logging defaults otherwise). */
  mailer?: ServiceOptions['mailer'];
  alerts?: ServiceOptions['alerts'];
}

export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const dataDir = tempDir('switchyard-data-');
  const env = loadEnv({
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_STATIC_TOKEN: STATIC_TOKEN,
    SWITCHYARD_SECRET: TEST_SECRET,
    SWITCHYARD_LOG_LEVEL: 'info',
    ...options.env,
  });
  const file = parseConfigFile(
    {
      regions: [],
      rateCards: {
        standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 },
        'heavy-load': { inputMicrosPerMillion: 6_000_000, outputMicrosPerMillion: 32_000_000, note: 'applied because of heavy load' },
      },
      ...options.config,
      // Each test service claims its sandbox uid range in a folder of its own (test files run in parallel with
      // the same range); the host-wide claim is tested in test/sandbox/limits.test.ts.
      agent: withOwnUidClaimDir(options.config?.agent, env.dataDir),
    },
    process.env,
  );
  // Tests not about them keep the human check cheap to solve and the per-network limits off (every test client is
  // 127.0.0.1); a test sets `accounts.humanCheck` or `accounts.prefixLimits` itself to exercise them.
  const accountsGiven = (options.config as { accounts?: Record<string, unknown> } | undefined)?.accounts ?? {};
  (file as { accounts: unknown }).accounts = {
    ...file.accounts,
    humanCheck:
      accountsGiven.humanCheck === undefined ? { ...file.accounts.humanCheck, cost: 1, maxCounter: 64 } : file.accounts.humanCheck,
    prefixLimits: accountsGiven.prefixLimits === undefined ? { signupsPerDay: 0, promotionClaimsPerDay: 0 } : file.accounts.prefixLimits,
  };
  const storage = options.storage ?? (await openTestStorage());
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  const config: AppConfig = deepFreeze({
    ...file,
    env,
    secret: TEST_SECRET,
    publicBaseUrl: env.publicBaseUrl ?? `http://127.0.0.1:${env.port}`,
  });
  const services = await createServices(config, { logger, storage, clock: options.clock, mailer: options.mailer, alerts: options.alerts });
  const app = await buildApp(services);
  await app.ready();
  const context: TestContext = {
    app,
    services,
    storage,
    config,
    dataDir,
    logs,
    async listen() {
      // A deep accept queue: load tests open hundreds of connections at once (Node's default is 511).
      const address = await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
      context.url = address;
      return address;
    },
    async close() {
      await app.close();
      await services.close().catch(() => undefined);
      await storage.destroy();
    },
  };
  return context;
}

export const operatorHeaders = { authorization: `Bearer ${STATIC_TOKEN}` };

export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

export { path };

function withOwnUidClaimDir(agent: unknown, dataDir: string): Record<string, unknown> {
  const section = (agent ?? {}) as Record<string, unknown>;
  const limits = (section.limits ?? {}) as Record<string, unknown>;
  return { ...section, limits: { uidClaimDir: path.join(dataDir, 'uid-ranges'), ...limits } };
}
