/** `GET /api/v1/unlimited-coding/plans`: the Unlimited Coding plans and the caller's active one. */
import { moneyJson } from '../../../../kernel/money.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';

const account = { auth: 'api', surface: 'account' } as const;

export interface UnlimitedCodingRouteDeps {
  billing: Pick<BillingServices, 'unlimited'>;
  config: AppConfig;
}

export async function unlimitedCodingRoutes(app: App, deps: UnlimitedCodingRouteDeps): Promise<void> {
  const { billing, config } = deps;

  app.get(
    '/unlimited-coding/plans',
    { config: account, schema: { tags: ['wallet'], summary: 'Unlimited Coding plans' } },
    async (request) => {
      const active = request.principal?.kind === 'customer' ? await billing.unlimited.active(request.principal.customerId) : null;
      return {
        plans: config.unlimitedPlans.map((plan) => ({
          id: plan.id,
          name: plan.name,
          description: plan.description ?? null,
          price: moneyJson(plan.priceMicros),
          duration_days: plan.durationDays,
          models: plan.models ?? null,
          surfaces: plan.surfaces ?? ['gateway', 'projects'],
          fair_use: { requests_per_hour: plan.fairUse.requestsPerHour ?? null, tokens_per_day: plan.fairUse.tokensPerDay ?? null },
          active: active?.plan.id === plan.id,
        })),
        active: active ? { plan: active.plan.id, ends_at: new Date(active.endsAt).toISOString() } : null,
      };
    },
  );
}
