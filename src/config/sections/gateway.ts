/** Gateway configuration: upstream providers, the model catalog and aliases such as `power-ai`. */
import { Type, type Static } from '@sinclair/typebox';

export const ProviderEntry = Type.Object({
  id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._-]+$' }),
  kind: Type.Union([Type.Literal('openai'), Type.Literal('anthropic')]),
  baseUrl: Type.String({ pattern: '^https?://' }),
  apiKey: Type.Optional(Type.String()),
  connectTimeoutMs: Type.Integer({ minimum: 1, default: 5_000 }),
  requestTimeoutMs: Type.Integer({ minimum: 1, default: 600_000 }),
  /** Longest silence allowed between two chunks of a stream. */
  idleTimeoutMs: Type.Integer({ minimum: 1, default: 120_000 }),
});
export type ProviderConfig = Static<typeof ProviderEntry>;

export const ModelCapabilities = Type.Object(
  {
    tools: Type.Boolean({ default: true }),
    images: Type.Boolean({ default: false }),
    /** The upstream speaks the OpenAI Responses API natively (otherwise responses are adapted onto chat). */
    responsesApi: Type.Boolean({ default: false }),
    contextWindow: Type.Integer({ minimum: 1, default: 128_000 }),
    maxOutputTokens: Type.Integer({ minimum: 1, default: 32_000 }),
    /**
     * The destination has native structured output (OpenAI `response_format`, Anthropic `output_config.format`).
     * Absent: OpenAI-kind yes, Anthropic-kind no (emulated with a forced tool whose arguments become the answer).
     */
    structuredOutput: Type.Optional(Type.Boolean()),
    /** Anthropic-kind: the model takes `thinking: {type: "adaptive"}` with `output_config.effort` (else a token budget). */
    adaptiveThinking: Type.Boolean({ default: false }),
    /**
     * The destination runs web search itself (Responses `web_search`, chat search models' `web_search_options`,
     * Anthropic `web_search_20250305`). Absent: Anthropic-kind and Responses-speaking models yes, chat-only models no.
     */
    webSearch: Type.Optional(Type.Boolean()),
    /** An embedding model: served by `POST /v1/embeddings` only. */
    embeddings: Type.Boolean({ default: false }),
  },
  { default: {} },
);

export const ModelEntry = Type.Object({
  id: Type.String({ minLength: 1 }),
  provider: Type.String({ minLength: 1 }),
  upstreamModel: Type.String({ minLength: 1 }),
  displayName: Type.Optional(Type.String()),
  capabilities: ModelCapabilities,
  rateCard: Type.String({ minLength: 1, default: 'standard' }),
  hidden: Type.Boolean({ default: false }),
  /**
   * A hosted tool the model does not run (web search on a chat-only model): `drop` leaves it out and names it in
   * the `x-switchyard-dropped-tools` response header, the call goes on; `refuse` answers 400.
   */
  unsupportedHostedTools: Type.Union([Type.Literal('drop'), Type.Literal('refuse')], { default: 'drop' }),
});
export type ModelConfig = Static<typeof ModelEntry>;

export const GatewaySection = {
  providers: Type.Array(ProviderEntry, { default: [] }),
  models: Type.Array(ModelEntry, { default: [] }),
  aliases: Type.Record(Type.String({ minLength: 1 }), Type.String({ minLength: 1 }), { default: {} }),
  storedObjects: Type.Object({ retentionMs: Type.Integer({ minimum: 60_000, default: 30 * 24 * 3600 * 1000 }) }, { default: {} }),
};
