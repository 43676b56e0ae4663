/** Where a call goes: the configured model a name resolved to, and its provider. Built by routing. */
import type { ModelConfig, ProviderConfig } from '../../config/sections/gateway.js';

export interface Destination {
  /** What the caller asked for (`power-ai` or a model id); echoed back in responses. */
  requestedModel: string;
  model: ModelConfig;
  provider: ProviderConfig;
}

/** Native structured output: as configured, else by kind (OpenAI-kind `response_format` yes, Anthropic-kind no). */
export function nativeStructuredOutput(destination: Destination): boolean {
  return destination.model.capabilities.structuredOutput ?? destination.provider.kind === 'openai';
}

/** The destination runs web search itself: as configured, else Anthropic-kind and Responses-speaking models. */
export function webSearchCapable(destination: Destination): boolean {
  const { capabilities } = destination.model;
  return capabilities.webSearch ?? (destination.provider.kind === 'anthropic' || capabilities.responsesApi);
}
