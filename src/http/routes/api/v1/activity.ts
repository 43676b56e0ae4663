/** The caller's activity: `/api/v1/activity` (paged JSON) and `/api/v1/activity.csv` (the same entries as CSV). */
import { Readable } from 'node:stream';
import { customerOf } from '../../../caller.js';
import type { AccountReports } from '../../../../billing/account-reports.js';
import type { App } from '../../../types.js';
import { activityFilter, ActivityCsvQuery, ActivityPageJson, ActivityQuery, CSV_ROW_LIMIT } from '../../shared/activity-json.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

export interface ActivityRouteDeps {
  accountReports: Pick<AccountReports, 'activity' | 'activityCsv'>;
}

export async function activityRoutes(app: App, deps: ActivityRouteDeps): Promise<void> {
  app.get(
    '/activity',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary:
          'Billed calls and agent turns, newest first: key, requested → resolved model, tokens, cost, latency, outcome, request id; filters and totals',
        querystring: ActivityQuery,
        response: { 200: ActivityPageJson },
      },
    },
    async (request) => {
      const { limit, before } = request.query;
      return deps.accountReports.activity(customerOf(request).customerId, { filter: activityFilter(request.query), limit, before });
    },
  );

  app.get(
    '/activity.csv',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary: `The filtered activity as CSV (text/csv, newest first, at most ${CSV_ROW_LIMIT} entries)`,
        querystring: ActivityCsvQuery,
      },
    },
    async (request, reply) => {
      const lines = deps.accountReports.activityCsv(customerOf(request).customerId, activityFilter(request.query), CSV_ROW_LIMIT);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="activity.csv"')
        .header('cache-control', 'no-store')
        .send(Readable.from(lines));
    },
  );
}
