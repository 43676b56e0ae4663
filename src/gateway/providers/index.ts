/** One adapter per configured provider, by kind. */
import type { ProviderConfig } from '../../config/sections/gateway.js';
import { systemClock, type Clock } from '../../kernel/clock.js';
import type { ProviderAdapter } from '../normalized/index.js';
import { createAnthropicAdapter } from './anthropic/adapter.js';
import { createOpenAiAdapter } from './openai/adapter.js';

/** `clock` reads Retry-After dates of upstream refusals (the service clock; the system clock by default). */
export function createProviderAdapter(provider: ProviderConfig, clock: Clock = systemClock): ProviderAdapter {
  return provider.kind === 'anthropic' ? createAnthropicAdapter(provider, clock) : createOpenAiAdapter(provider, clock);
}
