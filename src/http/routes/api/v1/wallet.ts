/** The caller's wallet: `/api/v1/wallet/status` (balance, holds, plan) and `/api/v1/wallet/payments`. */
import { Type } from '@sinclair/typebox';
import { payments } from '../../../../billing/reports.js';
import { walletOwnerOf as customerOf } from '../../../caller.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';
import { walletJson } from '../../shared/wallet-json.js';

const account = { auth: 'api', surface: 'account' } as const;

export async function walletRoutes(app: App, services: Services): Promise<void> {
  const { billing, storage } = services;

  app.get('/api/v1/wallet/status', { config: account, schema: { tags: ['wallet'], summary: 'Balance, holds, available credit and plan' } }, async (request) =>
    walletJson(await billing.walletSummary(customerOf(request).customerId)),
  );

  app.get(
    '/api/v1/wallet/payments',
    {
      config: account,
      schema: {
        tags: ['wallet'],
        summary: 'Credits and corrections of the wallets (payments), and card, crypto, cash and top-up purchases with their states (purchases), newest first',
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }) }),
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      return { payments: await payments(storage.db, customerId, request.query.limit), purchases: await services.payments.list(customerId, request.query.limit) };
    },
  );
}
