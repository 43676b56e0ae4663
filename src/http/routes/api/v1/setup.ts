/** `POST /api/v1/setup/health-check`: the non-billable readiness check of the calling key. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../caller.js';
import type { AccountReports } from '../../../../billing/account-reports.js';
import type { App } from '../../../types.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

export interface SetupRouteDeps {
  accountReports: Pick<AccountReports, 'keyHealth'>;
}

export async function setupRoutes(app: App, deps: SetupRouteDeps): Promise<void> {
  app.post(
    '/setup/health-check',
    {
      config: walletOwner,
      schema: {
        tags: ['keys'],
        summary: 'Non-billable readiness check of the calling key',
        body: Type.Union([Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })) }), Type.Null()]),
      },
    },
    async (request) => {
      const principal = customerOf(request);
      return deps.accountReports.keyHealth(principal.customerId, principal.keyId, request.body?.model);
    },
  );
}
