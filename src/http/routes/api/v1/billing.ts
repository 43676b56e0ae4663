/** Billing reports of the caller's wallet: `/api/v1/billing/token-usage` and `/api/v1/billing/currency-estimates`. */
import { Type } from '@sinclair/typebox';
import { moneyJson } from '../../../../kernel/money.js';
import { customerOf } from '../../../caller.js';
import type { AccountReports } from '../../../../billing/account-reports.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { PaymentServices } from '../../../../billing/payments/index.js';
import type { App } from '../../../types.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

export interface BillingRouteDeps {
  billing: Pick<BillingServices, 'walletSummary'>;
  /** The customer's display currency (purchase preferences) leads the estimates. */
  payments: Pick<PaymentServices, 'preferences'>;
  accountReports: Pick<AccountReports, 'tokenUsage'>;
  config: AppConfig;
}

export async function billingRoutes(app: App, deps: BillingRouteDeps): Promise<void> {
  const { billing, accountReports, config } = deps;

  app.get(
    '/billing/token-usage',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary: 'Token transactions (billed calls) and daily spend',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }),
        }),
      },
    },
    async (request) => accountReports.tokenUsage(customerOf(request).customerId, request.query),
  );

  app.get(
    '/billing/currency-estimates',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary:
          'Local-currency estimates of the wallet and the packs, led by your display currency (purchase preferences); checkout stays USD',
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      const [summary, preferences] = await Promise.all([billing.walletSummary(customerId), deps.payments.preferences.get(customerId)]);
      const { rates, asOf } = config.currencyEstimates;
      const wanted = preferences.display_currency;
      // A display currency without a configured rate is shown in USD (and said so).
      const perUsd = wanted === 'USD' ? 1 : rates[wanted];
      const display =
        perUsd === undefined
          ? { currency: 'USD', per_usd: 1, requested: wanted }
          : { currency: wanted, per_usd: perUsd, requested: wanted };
      const inDisplay = (micros: number) => Number(((micros / 1_000_000) * display.per_usd).toFixed(2));
      return {
        estimate: true,
        checkout_currency: 'USD',
        note: 'Local-currency values are estimates only; checkout and billing are in USD.',
        as_of: asOf ?? null,
        display: { ...display, available_estimate: inDisplay(summary.availableMicros) },
        packs: config.payments.packs.map((pack) => ({
          pack_id: pack.id,
          price: moneyJson(pack.priceMicros),
          price_estimate: inDisplay(pack.priceMicros),
        })),
        available: moneyJson(summary.availableMicros),
        estimates: Object.entries(rates).map(([currency, perUsd]) => ({
          currency,
          per_usd: perUsd,
          available_estimate: Number(((summary.availableMicros / 1_000_000) * perUsd).toFixed(2)),
        })),
      };
    },
  );
}
