/**
 * Non-billable readiness checks: the key is valid, the wallet can pay (or a plan covers), and the destination
 * provider answers a cheap GET of its model list within a short timeout. No model is called for money.
 */
import type { AppConfig } from '../config/load-config.js';
import type { ApiKeyRow } from '../accounts/key-repository.js';
import { parsePolicy } from '../accounts/principal.js';
import { moneyJson } from '../kernel/money.js';
import { modelAllowed } from './policy.js';

export interface WalletState {
  availableMicros: number;
  plan: string | null;
}

export interface ProbeResult {
  reachable: boolean;
  status: number | null;
  latency_ms: number;
  error?: string;
}

export async function probeProvider(config: AppConfig, modelId: string, timeoutMs: number): Promise<ProbeResult & { provider: string | null }> {
  const model = config.models.find((entry) => entry.id === modelId);
  const provider = model ? config.providers.find((entry) => entry.id === model.provider) : undefined;
  if (!provider) return { provider: null, reachable: false, status: null, latency_ms: 0, error: 'no provider configured' };
  const base = provider.baseUrl.replace(/\/+$/, '');
  const url = provider.kind === 'anthropic' && !base.endsWith('/v1') ? `${base}/v1/models` : `${base}/models`;
  const headers: Record<string, string> = {};
  if (provider.apiKey) {
    if (provider.kind === 'anthropic') Object.assign(headers, { 'x-api-key': provider.apiKey, 'anthropic-version': '2023-06-01' });
    else headers.authorization = `Bearer ${provider.apiKey}`;
  }
  const startedMs = Date.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel().catch(() => undefined);
    return { provider: provider.id, reachable: response.status < 500, status: response.status, latency_ms: Date.now() - startedMs };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed';
    return { provider: provider.id, reachable: false, status: null, latency_ms: Date.now() - startedMs, error: reason };
  }
}

export function defaultModelFor(config: AppConfig, models: string[] | undefined): string | null {
  if (models && models.length > 0) return models[0]!;
  if ('power-ai' in config.aliases) return 'power-ai';
  return config.models[0]?.id ?? null;
}

export async function healthReport(
  config: AppConfig,
  input: { key: ApiKeyRow; nowMs: number; wallet: WalletState; model?: string; timeoutMs: number },
) {
  const policy = parsePolicy(input.key.policy_json);
  const requested = input.model ?? defaultModelFor(config, policy.models);
  const modelId = requested === null ? null : (config.aliases[requested] ?? requested);
  const known = modelId !== null && config.models.some((entry) => entry.id === modelId);
  const keyOk = input.key.revoked_at === null && (input.key.expires_at === null || input.key.expires_at > input.nowMs);
  const allowed = requested !== null && known && modelAllowed(policy, requested, modelId!);
  const walletOk = input.wallet.availableMicros > 0 || input.wallet.plan !== null;
  const destination = known ? await probeProvider(config, modelId!, input.timeoutMs) : null;
  return {
    ok: keyOk && allowed && walletOk && destination?.reachable === true,
    billable: false,
    key: {
      id: input.key.id,
      active: keyOk,
      expires_at: input.key.expires_at === null ? null : new Date(input.key.expires_at).toISOString(),
      revoked: input.key.revoked_at !== null,
    },
    model: { requested, resolved: known ? modelId : null, allowed },
    wallet: { ok: walletOk, available: moneyJson(input.wallet.availableMicros), plan: input.wallet.plan },
    destination,
  };
}
