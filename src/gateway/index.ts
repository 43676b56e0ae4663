/**
 * Gateway domain composition: model catalog and aliases, one provider adapter per provider, the model-call driver
 * every model call runs through (protocols/driver.ts, over the metered `execute`), and the stored-objects service the protocols save finished calls into.
 */
import type { GatewayMetrics } from '../metrics/index.js';
import type { BillingServices } from '../billing/index.js';
import { CallNotes } from '../billing/call-notes.js';
import { CallsInFlight } from './calls-in-flight.js';
import type { ExecuteDeps } from './execute.js';
import type { EmbeddingsOptions } from './embeddings.js';
import { createProviderAdapter } from './providers/index.js';
import { AliasStore } from './routing/alias-store.js';
import { ModelCatalog } from './routing/model-catalog.js';
import { describeModel, listModels, type ModelDescriptor, type PriceOf } from './routing/descriptors.js';
import { ModelRouter } from './routing/router.js';
import { createStoredObjects, type StoredObjectsService } from './stored/index.js';
import { createResponsesLifecycle, type ResponsesLifecycle } from './responses/index.js';
import type { IdentityDeps } from '../accounts/deps.js';
import { createDriver, type Driver } from './protocols/driver.js';
import { createProtocols, type Protocols } from './protocols/index.js';
import { countMessageTokens, type TokenCount } from './protocols/messages/count-tokens.js';
import type { RequestHeaders } from './protocols/contract.js';
import type { Principal } from '../accounts/principal.js';
import type { CallSignal } from './normalized/index.js';
import type { JsonObject } from '../kernel/json.js';

/** What this domain takes from the composition root. */
export interface GatewayDeps extends IdentityDeps {
  metrics?: { gateway: GatewayMetrics };
}

/** How long shutdown waits for calls whose clients left to settle. */
const CALLS_SETTLE_WAIT_MS = 5_000;

export interface GatewayServices {
  router: ModelRouter;
  /** What `execute` runs with (routing, meter, the calls in flight); model calls go through `driver`. */
  executeDeps: ExecuteDeps;
  stored: StoredObjectsService;
  /** Background responses, cancel, compaction, input tokens, replay (gateway/responses). */
  responses: ResponsesLifecycle;
  /** The model-call driver (protocols/driver.ts): every model call of the service runs through it. */
  driver: Driver;
  /** The inbound protocols (chat, responses, completions, messages) the model-call routes drive. */
  protocols: Protocols;
  /** `POST /v1/messages/count_tokens`: the provider's own count when it has one, else ours. */
  countMessageTokens(options: { principal: Principal; body: JsonObject; headers: RequestHeaders; signal: CallSignal }): Promise<TokenCount>;
  /** `POST /v1/embeddings` (gateway/embeddings.ts). */
  embed(options: EmbeddingsOptions): Promise<Record<string, unknown>>;
  listModels(): ModelDescriptor[];
  describeModel(id: string): ModelDescriptor | undefined;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createGatewayServices(deps: GatewayDeps, billing: BillingServices): Promise<GatewayServices> {
  const { config } = deps;
  warnAboutMissingKeys(deps);
  const catalog = new ModelCatalog({ providers: config.providers, models: config.models, aliases: config.aliases });
  const router = new ModelRouter(catalog, new AliasStore(deps.storage, deps.clock), deps.logger, (provider) =>
    createProviderAdapter(provider, deps.clock),
  );
  const executeDeps: ExecuteDeps = {
    routing: router,
    meter: billing.meter,
    logger: deps.logger,
    defaultMaxOutputTokens: config.billing.defaultHoldOutputTokens,
    calls: new CallsInFlight(),
    metrics: deps.metrics?.gateway,
    notes: new CallNotes(deps.storage.db, deps.clock, deps.logger),
  };
  const stored = createStoredObjects(deps);
  const priceOf: PriceOf = (id, destinationModelId) => {
    try {
      return billing.pricesFor(id, destinationModelId);
    } catch {
      return null;
    }
  };
  const driver = createDriver(executeDeps, deps.clock, deps.logger);
  const responses = createResponsesLifecycle(deps, { executeDeps, driver, stored });
  return {
    router,
    executeDeps,
    stored,
    responses,
    driver,
    protocols: createProtocols(stored),
    countMessageTokens: (options) => countMessageTokens(router, deps.clock, options),
    embed: (options) => driver.embed(options),
    listModels: () => listModels(router, priceOf),
    describeModel: (id) => describeModel(router, id, priceOf),
    async start() {
      await router.start();
      stored.start();
    },
    async close() {
      await responses.close();
      // Calls whose clients left settle before billing closes; a call still streaming to a client kept the HTTP
      // server open until now, so this waits only for the aborting ones.
      if (!(await executeDeps.calls.idle(CALLS_SETTLE_WAIT_MS)))
        deps.logger.warn({ calls: executeDeps.calls.size }, 'model calls still unsettled at shutdown');
      await stored.close();
      await router.close();
    },
  };
}

/** One warning line naming every provider whose API key resolved empty, with the variable to set. */
function warnAboutMissingKeys(deps: GatewayDeps): void {
  const { config } = deps;
  const missing = config.providers
    .filter((provider) => provider.apiKey === '')
    .map((provider) => {
      const variable = config.keyVariables?.[provider.id];
      return variable ? `${provider.id} (set ${variable})` : `${provider.id} (set its apiKey)`;
    });
  if (missing.length > 0)
    deps.logger.warn(
      { providers: missing },
      `providers without an API key: ${missing.join(', ')}; their models answer 503 until a key is set`,
    );
}
