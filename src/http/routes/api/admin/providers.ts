/**
 * `GET /api/admin/providers` (operator bearer only): the configured upstream providers (keys masked) and models
 * with the price each is billed at now and the alias that points at it; `?check=true` also asks every provider for
 * its model list (non-billable) and reports whether it answered.
 */
import { Type } from '@sinclair/typebox';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { ProviderConfig } from '../../../../config/sections/gateway.js';
import { probeProviderEntry } from '../../../../gateway/providers/probe.js';
import type { ModelRouter } from '../../../../gateway/routing/router.js';
import type { App } from '../../../types.js';

export interface AdminProviderRouteDeps {
  config: AppConfig;
  billing: Pick<BillingServices, 'pricesFor'>;
  gateway: { router: Pick<ModelRouter, 'aliasEntries'> };
}

/** `sk-…wxyz`: enough to tell two keys apart, never enough to use one. */
export function maskKey(key: string | undefined): string | null {
  if (!key) return null;
  if (key.length < 12) return '…';
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}

function providerView(provider: ProviderConfig, config: AppConfig) {
  const variable = config.keyVariables?.[provider.id];
  return {
    id: provider.id,
    kind: provider.kind,
    base_url: provider.baseUrl,
    key: maskKey(provider.apiKey),
    key_variable: variable ?? null,
    models: config.models.filter((model) => model.provider === provider.id).map((model) => model.id),
  };
}

export async function adminProviderRoutes(app: App, deps: AdminProviderRouteDeps): Promise<void> {
  const { config, billing } = deps;
  app.get(
    '/providers',
    {
      config: { auth: 'operator', surface: 'account' },
      schema: {
        tags: ['admin'],
        summary: 'Providers (keys masked) and models with their current price; check=true probes each provider',
        querystring: Type.Object({ check: Type.Boolean({ default: false }) }),
      },
    },
    async (request) => {
      const aliases = [...deps.gateway.router.aliasEntries()];
      const providers = await Promise.all(
        config.providers.map(async (provider) => {
          const view = providerView(provider, config);
          if (!request.query.check) return { ...view, health: null };
          const health = provider.apiKey
            ? await probeProviderEntry(provider, config.billing.healthProbeTimeoutMs)
            : { provider: provider.id, reachable: false, status: null, latency_ms: 0, error: 'no key configured' };
          return { ...view, health };
        }),
      );
      const models = config.models.map((model) => ({
        id: model.id,
        provider: model.provider,
        upstream_model: model.upstreamModel,
        hidden: model.hidden,
        aliases: aliases.filter(([, target]) => target === model.id).map(([alias]) => alias),
        price: billing.pricesFor(model.id),
      }));
      return { providers, models };
    },
  );
}
