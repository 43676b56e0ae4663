/**
 * Command line and environment of one app-server child. The model provider is this service's own `/v1`
 * (Responses wire), authenticated with a token placed in the child's environment under `env_key`, so every
 * model call of an agent turn is routed and billed by the gateway. The environment is an allow-list: the
 * service's own secrets (database URL, server secret, operator token) never reach the agent's shell.
 */
import path from 'node:path';

export const PROVIDER_ID = 'switchyard';
export const TOKEN_ENV_KEY = 'SWITCHYARD_AGENT_TOKEN';

export interface LaunchSettings {
  /** Base URL of the service, without `/v1`. */
  serviceUrl: string;
  catalogFile: string;
  defaultModel: string;
  webSearch: 'live' | 'cached' | 'disabled';
  reasoningEffort: string;
  approvalPolicy: string;
  sandbox: string;
  providerRetries: number;
}

const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TERM', 'TZ', 'TMPDIR'];

/** TOML string literal (JSON string escaping is valid TOML basic-string escaping). */
function toml(value: string): string {
  return JSON.stringify(value);
}

export function appServerArgs(settings: LaunchSettings): string[] {
  const config: Record<string, string> = {
    model_provider: toml(PROVIDER_ID),
    [`model_providers.${PROVIDER_ID}.name`]: toml('Switchyard'),
    [`model_providers.${PROVIDER_ID}.base_url`]: toml(`${settings.serviceUrl.replace(/\/+$/, '')}/v1`),
    [`model_providers.${PROVIDER_ID}.wire_api`]: toml('responses'),
    [`model_providers.${PROVIDER_ID}.env_key`]: toml(TOKEN_ENV_KEY),
    [`model_providers.${PROVIDER_ID}.request_max_retries`]: String(settings.providerRetries),
    [`model_providers.${PROVIDER_ID}.stream_max_retries`]: String(settings.providerRetries),
    model_catalog_json: toml(settings.catalogFile),
    model: toml(settings.defaultModel),
    web_search: toml(settings.webSearch),
    model_reasoning_effort: toml(settings.reasoningEffort),
    approval_policy: toml(settings.approvalPolicy),
    sandbox_mode: toml(settings.sandbox),
    // The provider token lives in the app-server's environment; the commands the agent runs must not inherit it.
    'shell_environment_policy.exclude': `[${toml(TOKEN_ENV_KEY)}]`,
  };
  // The shell snapshot replays the app-server's whole environment (the provider token included) into every
  // command, past `shell_environment_policy`; commands start from the filtered environment instead.
  const args = ['app-server', '--disable', 'plugins', '--disable', 'shell_snapshot'];
  for (const [key, value] of Object.entries(config)) args.push('-c', `${key}=${value}`);
  return args;
}

export function appServerEnv(codexHome: string, token: string, parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED_ENV) if (parent[name] !== undefined) env[name] = parent[name];
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.CODEX_HOME = codexHome;
  // The customer's own temporary folder. Codex refuses to set up its command sandbox helper (bubblewrap's
  // codex-linux-sandbox alias) in a CODEX_HOME under the temporary folder, which a shared TMPDIR such as /tmp
  // would make every data dir below it; a private one also keeps customers' temporary files apart.
  env.TMPDIR = path.join(codexHome, 'tmp');
  env.LOG_FORMAT = 'json';
  env[TOKEN_ENV_KEY] = token;
  return env;
}
