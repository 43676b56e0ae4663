/** Where a call goes: the configured model a name resolved to, and its provider. Built by routing. */
import type { ModelConfig, ProviderConfig } from '../../config/sections/gateway.js';

export interface Destination {
  /** What the caller asked for (`power-ai` or a model id); echoed back in responses. */
  requestedModel: string;
  model: ModelConfig;
  provider: ProviderConfig;
}
