/**
 * One customer's activity for an operator (`/api/admin/customers/{id}/activity` and `.csv`): the same entries and
 * filters as the customer's own `/api/v1/activity`. An unknown customer is 404.
 */
import { Type } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { AccountReports } from '../../../../billing/account-reports.js';
import type { App } from '../../../types.js';
import { activityFilter, ActivityCsvQuery, ActivityPageJson, ActivityQuery, CSV_ROW_LIMIT } from '../../shared/activity-json.js';

const operator = { auth: 'operator', surface: 'account' } as const;
const CustomerParams = Type.Object({ customer_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export interface AdminActivityRouteDeps {
  customers: Pick<CustomerService, 'get'>;
  accountReports: Pick<AccountReports, 'activity' | 'activityCsv'>;
}

export async function adminActivityRoutes(app: App, deps: AdminActivityRouteDeps): Promise<void> {
  app.get(
    '/customers/:customer_id/activity',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: "One customer's billed calls and agent turns, newest first, with filters and totals",
        params: CustomerParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPageJson },
      },
    },
    async (request) => {
      const customer = await deps.customers.get(request.params.customer_id);
      const { limit, before } = request.query;
      return deps.accountReports.activity(customer.id, { filter: activityFilter(request.query), limit, before });
    },
  );

  app.get(
    '/customers/:customer_id/activity.csv',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: `One customer's filtered activity as CSV (at most ${CSV_ROW_LIMIT} entries)`,
        params: CustomerParams,
        querystring: ActivityCsvQuery,
      },
    },
    async (request, reply) => {
      const customer = await deps.customers.get(request.params.customer_id);
      const lines = deps.accountReports.activityCsv(customer.id, activityFilter(request.query), CSV_ROW_LIMIT);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="activity-customer-${customer.id}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(lines));
    },
  );
}
