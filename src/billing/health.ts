/**
 * Non-billable readiness checks: the key is valid, the wallet can pay (or a plan covers), and the destination
 * provider answers (the probe is handed in: the gateway's providers know how to reach each kind). No model is
 * called for money.
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

/** What the destination check reports (the gateway's provider probe answers it). */
export interface DestinationProbe {
  provider: string | null;
  reachable: boolean;
  status: number | null;
  latency_ms: number;
  error?: string;
}

export function defaultModelFor(config: AppConfig, models: string[] | undefined): string | null {
  if (models && models.length > 0) return models[0]!;
  if ('power-ai' in config.aliases) return 'power-ai';
  return config.models[0]?.id ?? null;
}

export async function healthReport(
  config: AppConfig,
  input: { key: ApiKeyRow; nowMs: number; wallet: WalletState; model?: string; probe: (modelId: string) => Promise<DestinationProbe> },
) {
  const policy = parsePolicy(input.key.policy_json);
  const requested = input.model ?? defaultModelFor(config, policy.models);
  const modelId = requested === null ? null : (config.aliases[requested] ?? requested);
  const known = modelId !== null && config.models.some((entry) => entry.id === modelId);
  const keyOk = input.key.revoked_at === null && (input.key.expires_at === null || input.key.expires_at > input.nowMs);
  const allowed = requested !== null && known && modelAllowed(policy, requested, modelId!);
  const walletOk = input.wallet.availableMicros > 0 || input.wallet.plan !== null;
  const destination = known ? await input.probe(modelId!) : null;
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
