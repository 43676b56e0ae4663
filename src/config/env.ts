/**
 * The only reader of `process.env` for the service's own settings. Every variable is validated at start and a
 * bad value stops the start with a message naming the variable.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface EnvSettings {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  staticToken?: string;
  /** The file the static token was read from (kept out of agent sandboxes). */
  staticTokenFile?: string;
  configPath?: string;
  secret?: string;
  logLevel: string;
  publicBaseUrl?: string;
  /** The standard OpenTelemetry variable: where traces go when the config file names no `tracing.endpoint`. */
  otlpEndpoint?: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Every environment variable the service reads, with its documentation (the README table mirrors this). */
export const ENV_VARIABLES = {
  PORT: 'TCP port to listen on (1..65535). Default 8080.',
  HOST: 'Interface to bind. Default 127.0.0.1.',
  SWITCHYARD_DATA_DIR:
    'Directory for the SQLite file, the generated secret and operator token, workspaces and app-server homes. Default ./data.',
  DATABASE_URL: 'PostgreSQL connection URL (postgres://…). Absent: SQLite file switchyard.sqlite in the data dir.',
  REDIS_URL: 'Optional Redis URL (redis://…) for shared rate limits, revocations and event fan-out across nodes.',
  SWITCHYARD_STATIC_TOKEN: 'Static bearer token with operator rights (at least 24 characters).',
  SWITCHYARD_STATIC_TOKEN_FILE:
    'Path of a file holding the static operator token (surrounding whitespace ignored); an alternative to SWITCHYARD_STATIC_TOKEN that keeps the token out of the process environment. Setting both is an error.',
  SWITCHYARD_CONFIG: 'Path to the JSON config file (providers, models, aliases, rate cards, regions, releases, agent defaults).',
  SWITCHYARD_SECRET: 'Server secret for keyed hashes and signatures (at least 32 characters). Generated into the data dir when absent.',
  SWITCHYARD_LOG_LEVEL: 'pino log level: fatal, error, warn, info, debug, trace or silent. Default info.',
  SWITCHYARD_PUBLIC_URL:
    'Public base URL of this service, used in /api/v1/me and for the app-server model provider. Default http://HOST:PORT (localhost for a wildcard HOST).',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'Base URL of an OTLP/HTTP trace receiver (e.g. http://127.0.0.1:4318); turns tracing on unless the config file sets tracing.endpoint. Absent in both: tracing is off.',
} as const;

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function optional(env: NodeJS.ProcessEnv, name: keyof typeof ENV_VARIABLES): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseUrl(env: NodeJS.ProcessEnv, name: keyof typeof ENV_VARIABLES, protocols: string[]): string | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use one of ${protocols.join(', ')} (got ${url.protocol})`);
  }
  return value;
}

export function loadEnv(env: NodeJS.ProcessEnv = process.env): EnvSettings {
  const portText = optional(env, 'PORT') ?? '8080';
  if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    throw new ConfigError(`PORT must be an integer between 1 and 65535 (got "${portText}")`);
  }
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError('HOST must be a host name or address');

  const tokenFileText = optional(env, 'SWITCHYARD_STATIC_TOKEN_FILE');
  const staticTokenFile = tokenFileText === undefined ? undefined : path.resolve(tokenFileText);
  let staticToken = optional(env, 'SWITCHYARD_STATIC_TOKEN');
  let tokenSource = 'SWITCHYARD_STATIC_TOKEN';
  if (staticTokenFile !== undefined) {
    if (staticToken !== undefined) throw new ConfigError('Set SWITCHYARD_STATIC_TOKEN or SWITCHYARD_STATIC_TOKEN_FILE, not both');
    try {
      staticToken = fs.readFileSync(staticTokenFile, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`SWITCHYARD_STATIC_TOKEN_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    tokenSource = 'The token in SWITCHYARD_STATIC_TOKEN_FILE';
  }
  if (staticToken !== undefined && (staticToken.length < 24 || /\s/.test(staticToken))) {
    throw new ConfigError(`${tokenSource} must be at least 24 characters without whitespace`);
  }
  const secret = optional(env, 'SWITCHYARD_SECRET');
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('SWITCHYARD_SECRET must be at least 32 characters');
  }
  const logLevel = optional(env, 'SWITCHYARD_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`SWITCHYARD_LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  return {
    port: Number(portText),
    host,
    dataDir: path.resolve(optional(env, 'SWITCHYARD_DATA_DIR') ?? './data'),
    databaseUrl: parseUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: parseUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    staticToken,
    staticTokenFile,
    configPath: optional(env, 'SWITCHYARD_CONFIG'),
    secret,
    logLevel,
    publicBaseUrl: parseUrl(env, 'SWITCHYARD_PUBLIC_URL', ['http:', 'https:']),
    otlpEndpoint: parseUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
  };
}
