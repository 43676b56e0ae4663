/**
 * Built-in configuration used when no SWITCHYARD_CONFIG file is given: the two stated rate cards, real
 * OpenAI/Anthropic providers (keys from the environment) and `power-ai`. No regions: the loader names this service
 * itself as the one region. Nothing here names a host the operator did not choose.
 */
export const defaultConfigFile = {
  providers: [
    { id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: '${OPENAI_API_KEY:-}' },
    { id: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: '${ANTHROPIC_API_KEY:-}' },
  ],
  models: [
    {
      id: 'gpt-5.5',
      provider: 'openai',
      upstreamModel: 'gpt-5.5',
      capabilities: { tools: true, images: true, responsesApi: true, contextWindow: 400_000, maxOutputTokens: 128_000 },
      rateCard: 'standard',
    },
    {
      id: 'claude-sonnet-4-5',
      provider: 'anthropic',
      upstreamModel: 'claude-sonnet-4-5',
      capabilities: { tools: true, images: true, responsesApi: false, contextWindow: 200_000, maxOutputTokens: 64_000 },
      rateCard: 'standard',
    },
  ],
  aliases: { 'power-ai': 'gpt-5.5' },
  rateCards: {
    standard: { label: 'Standard', inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 },
    'heavy-load': {
      label: 'Heavy load',
      inputMicrosPerMillion: 6_000_000,
      outputMicrosPerMillion: 32_000_000,
      note: 'applied because of heavy load',
    },
  },
  payments: {
    card: {
      secretKey: '${CARD_PROCESSOR_SECRET_KEY:-}',
      webhookSecret: '${CARD_WEBHOOK_SECRET:-}',
    },
  },
  releases: {
    cli: { version: '0.147.0', notes: 'Reference command-line client target.' },
    launcherA: { version: '1.0.48' },
    launcherB: { version: '1.0.48' },
  },
};
