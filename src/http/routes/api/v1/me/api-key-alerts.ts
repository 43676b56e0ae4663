/** The account's key alerts: `/api/v1/me/api-key-alerts` and acknowledging one. */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { customerAccount } from './credential-changes.js';

const AlertParams = Type.Object({ event_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const AlertQuery = Type.Object({ include_acknowledged: Type.Optional(Type.Boolean({ default: false })) });

export interface ApiKeyAlertRouteDeps {
  accounts: Pick<AccountServices, 'alerts'>;
}

export function apiKeyAlertRoutes(app: App, deps: ApiKeyAlertRouteDeps): void {
  const { accounts } = deps;

  app.get(
    '/api-key-alerts',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Key alerts (spending limit 80 %/reached, expiring/expired, replaced/revoked, new network), newest first',
        querystring: AlertQuery,
      },
    },
    async (request) => {
      const data = await accounts.alerts.list(customerOf(request).customerId, { includeAcknowledged: request.query.include_acknowledged });
      return { data, unacknowledged_count: data.filter((alert) => !alert.acknowledged).length };
    },
  );

  app.post(
    '/api-key-alerts/:event_id/acknowledge',
    {
      config: customerAccount,
      schema: { tags: ['account'], summary: 'Acknowledges one of your alerts (others: 404)', params: AlertParams },
    },
    async (request) => accounts.alerts.acknowledge(customerOf(request).customerId, request.params.event_id),
  );
}
