/**
 * A cheap, non-billable reachability check of a model's provider: a GET of its model list within a timeout.
 * Each provider kind knows its own list URL and credentials header; no model is called.
 */
import type { AppConfig } from '../../config/load-config.js';
import type { ProviderConfig } from '../../config/sections/gateway.js';
import { ANTHROPIC_VERSION } from './anthropic/adapter.js';

export interface ProbeResult {
  provider: string | null;
  reachable: boolean;
  status: number | null;
  latency_ms: number;
  error?: string;
}

/** The model-list request of one provider: URL and headers by kind. */
export function modelListRequest(provider: ProviderConfig): { url: string; headers: Record<string, string> } {
  const base = provider.baseUrl.replace(/\/+$/, '');
  if (provider.kind === 'anthropic') {
    return {
      url: base.endsWith('/v1') ? `${base}/models` : `${base}/v1/models`,
      headers: provider.apiKey ? { 'x-api-key': provider.apiKey, 'anthropic-version': ANTHROPIC_VERSION } : {},
    };
  }
  return { url: `${base}/models`, headers: provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {} };
}

export async function probeProvider(config: AppConfig, modelId: string, timeoutMs: number): Promise<ProbeResult> {
  const model = config.models.find((entry) => entry.id === modelId);
  const provider = model ? config.providers.find((entry) => entry.id === model.provider) : undefined;
  if (!provider) return { provider: null, reachable: false, status: null, latency_ms: 0, error: 'no provider configured' };
  return probeProviderEntry(provider, timeoutMs);
}

/** The same check for one configured provider (the operator console's provider list). */
export async function probeProviderEntry(provider: ProviderConfig, timeoutMs: number): Promise<ProbeResult> {
  const { url, headers } = modelListRequest(provider);
  const startedMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedMs);
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => undefined);
    return { provider: provider.id, reachable: response.status < 500, status: response.status, latency_ms: elapsed() };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed';
    return { provider: provider.id, reachable: false, status: null, latency_ms: elapsed(), error: reason };
  }
}
