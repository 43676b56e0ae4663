/**
 * A service wired to the scripted upstream twice over: an OpenAI-kind provider (`${url}/v1`) and an
 * Anthropic-kind provider (`${url}`), with models of each kind and the `power-ai` alias.
 */
import { createTestContext, type TestContext } from '../helpers/context.js';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';

export interface GatewayTestContext {
  context: TestContext;
  upstream: ModelUpstream;
  url: string;
  /** A customer's wallet key (System Token). */
  key: string;
  close(): Promise<void>;
}

export const MODELS = {
  openai: 'gpt-test',
  native: 'gpt-native',
  anthropic: 'claude-test',
  textOnly: 'text-only',
} as const;

/** `models` are added to the catalogue; `config` sections are merged over the rest (raw config-file values). */
export async function createGatewayContext(
  options: { refusedUrl?: string; models?: unknown[]; config?: Record<string, unknown> } = {},
): Promise<GatewayTestContext> {
  const upstream = await startModelUpstream();
  const capabilities = { tools: true, images: true };
  // Raw config-file values (defaults are filled in by the schema, as for a real config file).
  const config: Record<string, unknown> = {
    providers: [
      { id: 'openai-fake', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-upstream-openai' },
      { id: 'anthropic-fake', kind: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-upstream-anthropic' },
      { id: 'refused', kind: 'openai', baseUrl: options.refusedUrl ?? 'http://127.0.0.1:9/v1', connectTimeoutMs: 1_000 },
      { id: 'impatient', kind: 'openai', baseUrl: `${upstream.url}/v1`, requestTimeoutMs: 300, idleTimeoutMs: 300 },
    ],
    models: [
      { id: MODELS.openai, provider: 'openai-fake', upstreamModel: 'upstream-gpt', capabilities },
      {
        id: MODELS.native,
        provider: 'openai-fake',
        upstreamModel: 'upstream-gpt-native',
        capabilities: { ...capabilities, responsesApi: true },
      },
      { id: MODELS.anthropic, provider: 'anthropic-fake', upstreamModel: 'upstream-claude', capabilities, rateCard: 'heavy-load' },
      { id: MODELS.textOnly, provider: 'openai-fake', upstreamModel: 'upstream-text', capabilities: { tools: false, images: false } },
      { id: 'vendor/slashed-model', provider: 'openai-fake', upstreamModel: 'upstream-slashed', capabilities },
      { id: 'refused-model', provider: 'refused', upstreamModel: 'nowhere', capabilities },
      { id: 'impatient-model', provider: 'impatient', upstreamModel: 'upstream-impatient', capabilities },
      ...(options.models ?? []),
    ],
    aliases: { 'power-ai': MODELS.openai },
    // Gateway behaviour is tested apart from wallet balances; billing has its own suite.
    billing: { enabled: false },
    ...options.config,
  };
  const context = await createTestContext({ config });
  const url = await context.listen();
  const customer = await context.services.customers.create({ email: `gateway-${Math.random().toString(36).slice(2)}@example.com` });
  return {
    context,
    upstream,
    url,
    key: customer.systemToken.key,
    async close() {
      await context.close();
      await upstream.close();
    },
  };
}
