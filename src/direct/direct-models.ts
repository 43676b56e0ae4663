/**
 * `GET /api/models` (the app-server's model list merged with the gateway's models and aliases) and
 * `GET /api/core/releases/current` (the app-server version that actually runs, and the reference target).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PINNED_APP_SERVER_VERSION } from '../appserver/client.js';
import type { Model, ModelListResponse } from '../appserver/protocol.js';
import type { AppServerSupervisor } from '../appserver/supervisor.js';
import type { GatewayServices } from '../gateway/index.js';
import type { ModelDescriptor } from '../gateway/routing/descriptors.js';

const run = promisify(execFile);

/** Clients up to this version send the legacy turn-level `sandboxPolicy`. */
export const LEGACY_SANDBOX_POLICY_CLIENT_MAX = '0.135.0';
const MODEL_PAGE_SIZE = 200;

export interface DirectModelsDeps {
  supervisor: AppServerSupervisor;
  gateway: GatewayServices;
  binary: string;
}

export class DirectModels {
  private binaryVersion: Promise<string | null> | null = null;

  constructor(private readonly deps: DirectModelsDeps) {}

  async models(customerId: number, includeHidden: boolean) {
    const server = await this.deps.supervisor.acquire(customerId);
    const agentModels: Model[] = [];
    let cursor: string | null = null;
    do {
      const page: ModelListResponse = await server.call('model/list', { includeHidden, limit: MODEL_PAGE_SIZE, cursor });
      agentModels.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const gatewayModels = this.gatewayModels(includeHidden);
    const visible = new Set(this.deps.gateway.listModels().map((descriptor) => descriptor.id));
    const byId = new Map(gatewayModels.map((descriptor) => [descriptor.id, descriptor]));
    const merged = agentModels.map((model) => {
      const descriptor = byId.get(model.model);
      byId.delete(model.model);
      return {
        id: model.model,
        display_name: descriptor?.display_name ?? model.displayName,
        type: descriptor?.alias ? 'alias' : 'model',
        hidden: model.hidden,
        is_default: model.isDefault,
        default_reasoning_effort: model.defaultReasoningEffort,
        supported_reasoning_efforts: model.supportedReasoningEfforts.map((option) => option.reasoningEffort),
        input_modalities: model.inputModalities,
        capabilities: descriptor?.capabilities ?? null,
        pricing: descriptor?.pricing ?? null,
        agent: true,
        gateway: descriptor !== undefined,
      };
    });
    // Gateway models the agent catalog does not declare are still callable on /v1, just not by threads.
    const gatewayOnly = [...byId.values()].map((descriptor) => ({
      id: descriptor.id,
      display_name: descriptor.display_name,
      type: descriptor.alias ? 'alias' : 'model',
      hidden: !visible.has(descriptor.id),
      is_default: false,
      default_reasoning_effort: null,
      supported_reasoning_efforts: [],
      input_modalities: descriptor.capabilities.images ? ['text', 'image'] : ['text'],
      capabilities: descriptor.capabilities,
      pricing: descriptor.pricing,
      agent: false,
      gateway: true,
    }));
    return { object: 'list', data: [...merged, ...gatewayOnly] };
  }

  async release(customerId: number | null) {
    const running = customerId === null ? null : (this.deps.supervisor.peek(customerId)?.version ?? null);
    const anyRunning = this.deps.supervisor.status().find((entry) => entry.version)?.version ?? null;
    const version = running ?? anyRunning ?? (await this.installedVersion());
    return {
      app_server_version: version,
      source: running ? 'your running app-server' : anyRunning ? 'a running app-server' : 'installed binary',
      pinned_version: PINNED_APP_SERVER_VERSION,
      reference_cli_target: PINNED_APP_SERVER_VERSION,
      synced: version === PINNED_APP_SERVER_VERSION,
      legacy_sandbox_policy_clients_max: LEGACY_SANDBOX_POLICY_CLIENT_MAX,
    };
  }

  private gatewayModels(includeHidden: boolean): ModelDescriptor[] {
    const listed = this.deps.gateway.listModels();
    if (!includeHidden) return listed;
    const hidden = [...this.deps.gateway.router.catalog.models.values()]
      .filter((model) => model.hidden)
      .map((model) => this.deps.gateway.describeModel(model.id))
      .filter((descriptor): descriptor is ModelDescriptor => descriptor !== undefined);
    return [...listed, ...hidden];
  }

  private installedVersion(): Promise<string | null> {
    this.binaryVersion ??= run(this.deps.binary, ['--version'], { timeout: 10_000 })
      .then(({ stdout }) => /(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1] ?? null)
      .catch(() => null);
    return this.binaryVersion;
  }
}
