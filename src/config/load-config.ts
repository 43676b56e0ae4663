/**
 * Loads the whole configuration: environment (validated), config file (`${ENV}` substitution, schema defaults,
 * validation naming the bad field) and the server secret. The result is frozen.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { defaultConfigFile } from './default-config.js';
import { ConfigError, loadEnv, type EnvSettings } from './env.js';
import { ConfigFileSchema, type FileConfig } from './file-schema.js';
import { describeSchemaError, fieldPath } from './strict.js';

/**
 * `keyVariables`: provider id → the environment variable its `apiKey` names (`${OPENAI_API_KEY:-}`), for the
 * start-up warning about providers whose key resolved empty.
 */
export type AppConfig = Readonly<
  FileConfig & { env: EnvSettings; secret: string; publicBaseUrl: string; keyVariables?: Record<string, string> }
>;

/** Sections whose built-in value a config file keeps unless it names them. `aliases` follows `models` (see below). */
const GATEWAY_MODELS = 'models';

/**
 * A config file's sections over the built-in ones: each top-level section the file names replaces the built-in
 * section; each it leaves out keeps the built-in one (rate cards, regions, releases, …). The built-in aliases
 * point at built-in models, so they are kept only when the file keeps the built-in models too.
 */
export function withBuiltInSections(file: unknown, builtIn: Record<string, unknown> = defaultConfigFile): unknown {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) return file;
  const merged: Record<string, unknown> = { ...structuredClone(builtIn), ...(file as Record<string, unknown>) };
  if (GATEWAY_MODELS in file && !('aliases' in file)) delete merged.aliases;
  if ('providers' in file && !(GATEWAY_MODELS in file)) {
    // Built-in models name built-in providers; a file with its own providers and no models has no models.
    delete merged.models;
    delete merged.aliases;
  }
  return merged;
}

/** Provider id → the environment variable named by its `apiKey` placeholder, read before substitution. */
export function providerKeyVariables(raw: unknown): Record<string, string> {
  const providers = (raw as { providers?: unknown } | null)?.providers;
  const found: Record<string, string> = {};
  if (!Array.isArray(providers)) return found;
  for (const provider of providers) {
    const match = typeof provider?.apiKey === 'string' ? /\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(provider.apiKey) : null;
    if (match && typeof provider.id === 'string') found[provider.id] = match[1]!;
  }
  return found;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Replaces `${NAME}` (required) and `${NAME:-fallback}` in every string of the parsed file. */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, at: (string | number)[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined) return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`config file: ${fieldPath(at)}: environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => substituteEnv(item, env, [...at, index]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, [...at, key])]));
  }
  return value;
}

export function parseConfigFile(raw: unknown, env: NodeJS.ProcessEnv = process.env): FileConfig {
  const substituted = substituteEnv(raw, env);
  const withDefaults = Value.Default(ConfigFileSchema, structuredClone(substituted));
  const first = Value.Errors(ConfigFileSchema, withDefaults).First();
  if (first) throw new ConfigError(`config file: ${describeSchemaError(first)}`);
  const config = withDefaults as FileConfig;
  checkReferences(config);
  return config;
}

function checkReferences(config: FileConfig): void {
  if (config.usageWebhook.url !== undefined && config.usageWebhook.secret.length < 16)
    throw new ConfigError('config file: /usageWebhook/secret: a secret of at least 16 characters is required with usageWebhook.url');
  const providers = new Set(config.providers.map((provider) => provider.id));
  const models = new Set<string>();
  config.models.forEach((model, index) => {
    if (!providers.has(model.provider)) {
      throw new ConfigError(`config file: models[${index}].provider: unknown provider "${model.provider}"`);
    }
    if (!(model.rateCard in config.rateCards)) {
      throw new ConfigError(`config file: models[${index}].rateCard: unknown rate card "${model.rateCard}"`);
    }
    if (models.has(model.id)) throw new ConfigError(`config file: models[${index}].id: duplicate model "${model.id}"`);
    models.add(model.id);
  });
  const regions = new Set<string>();
  config.regions.forEach((region, index) => {
    if (regions.has(region.id)) throw new ConfigError(`config file: regions[${index}].id: duplicate region "${region.id}"`);
    regions.add(region.id);
  });
  for (const [host, address] of Object.entries(config.agent.egress.hosts)) {
    if (net.isIP(address) === 0)
      throw new ConfigError(`config file: ${fieldPath(['agent', 'egress', 'hosts', host])}: "${address}" is not an IP address`);
  }
  for (const [alias, target] of Object.entries(config.aliases)) {
    if (!models.has(target)) throw new ConfigError(`config file: ${fieldPath(['aliases', alias])}: unknown model "${target}"`);
    if (models.has(alias)) throw new ConfigError(`config file: ${fieldPath(['aliases', alias])}: an alias cannot shadow a model`);
  }
}

function readConfigFile(configPath: string | undefined): unknown {
  if (configPath === undefined) return defaultConfigFile;
  let text: string;
  try {
    text = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    throw new ConfigError(`SWITCHYARD_CONFIG: cannot read ${configPath}: ${(error as Error).message}`);
  }
  try {
    return withBuiltInSections(JSON.parse(text));
  } catch (error) {
    throw new ConfigError(`SWITCHYARD_CONFIG: ${configPath} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Reads the secret from the environment, else from `<dataDir>/secret`, generating it (mode 0600) on first start. */
export function loadOrCreateSecret(env: EnvSettings): string {
  if (env.secret !== undefined) return env.secret;
  const file = path.join(env.dataDir, 'secret');
  fs.mkdirSync(env.dataDir, { recursive: true });
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** A wildcard bind address is not an address clients can use; name the local host instead. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export function loadConfig(processEnv: NodeJS.ProcessEnv = process.env, overrides: Partial<FileConfig> = {}): AppConfig {
  const env = loadEnv(processEnv);
  const raw = readConfigFile(env.configPath);
  const file = { ...parseConfigFile(raw, processEnv), ...overrides };
  const secret = loadOrCreateSecret(env);
  const publicBaseUrl = (env.publicBaseUrl ?? `http://${reachableHost(env.host)}:${env.port}`).replace(/\/+$/, '');
  const regions = file.regions.length > 0 ? file.regions : [ownRegion(publicBaseUrl)];
  return deepFreeze({ ...file, regions, env, secret, publicBaseUrl, keyVariables: providerKeyVariables(raw) });
}

/** Without configured regions the one region is this service itself, checked at its own `/healthz`. */
export function ownRegion(publicBaseUrl: string): FileConfig['regions'][number] {
  return { id: 'local', name: 'This service', apiBaseUrl: publicBaseUrl, healthUrl: `${publicBaseUrl}/healthz` };
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
