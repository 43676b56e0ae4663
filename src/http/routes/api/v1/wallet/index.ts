/** The caller's wallet: `/api/v1/wallet/status` (balance, holds, plan) and `/api/v1/wallet/payments`. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../../caller.js';
import type { AccountReports } from '../../../../../billing/account-reports.js';
import type { BillingServices } from '../../../../../billing/index.js';
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';
import { walletJson } from '../../../shared/wallet-json.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

export interface WalletRouteDeps {
  billing: Pick<BillingServices, 'walletSummary'>;
  payments: Pick<PaymentServices, 'list'>;
  accountReports: Pick<AccountReports, 'payments'>;
}

export async function walletRoutes(app: App, deps: WalletRouteDeps): Promise<void> {
  const { billing, accountReports } = deps;

  app.get(
    '/status',
    { config: walletOwner, schema: { tags: ['wallet'], summary: 'Balance, holds, available credit and plan' } },
    async (request) => walletJson(await billing.walletSummary(customerOf(request).customerId)),
  );

  app.get(
    '/payments',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary:
          'Credits and corrections of the wallets (payments), and card, crypto, cash and top-up purchases with their states (purchases), newest first',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }) }),
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      return {
        payments: await accountReports.payments(customerId, request.query.limit),
        purchases: await deps.payments.list(customerId, request.query.limit),
      };
    },
  );
}
