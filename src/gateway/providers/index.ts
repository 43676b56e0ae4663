/** One adapter per configured provider, by kind. */
import type { ProviderConfig } from '../../config/sections/gateway.js';
import type { ProviderAdapter } from '../normalized/index.js';
import { createAnthropicAdapter } from './anthropic/adapter.js';
import { createOpenAiAdapter } from './openai/adapter.js';

export function createProviderAdapter(provider: ProviderConfig): ProviderAdapter {
  return provider.kind === 'anthropic' ? createAnthropicAdapter(provider) : createOpenAiAdapter(provider);
}
