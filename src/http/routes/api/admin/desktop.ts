/** Operators' view of the desktop clients: bug reports and who is online. */
import { Type } from '@sinclair/typebox';
import type { App } from '../../../app.js';
import type { Services } from '../../../../services.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const BugReportQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  before_id: Type.Optional(Id),
  customer_id: Type.Optional(Id),
});
const PresenceQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });
const operator = { auth: 'operator' } as const;

export async function adminDesktopRoutes(app: App, services: Services): Promise<void> {
  const { bugReports, presence } = services.desktop;

  app.get(
    '/api/admin/desktop/bug-reports',
    { config: operator, schema: { tags: ['admin'], summary: 'Desktop bug reports, newest first: {data:[{id, customer_id, email, text, app_version, os, log_excerpt, created_at}]}', querystring: BugReportQuery } },
    async (request) => bugReports.list({ limit: request.query.limit, beforeId: request.query.before_id, customerId: request.query.customer_id }),
  );

  app.get(
    '/api/admin/desktop/presence',
    { config: operator, schema: { tags: ['admin'], summary: 'Desktop clients online now: {ttl_seconds, online_count, data:[{customer_id, email, app_version, os, online_since, last_seen_at, online_until}]}', querystring: PresenceQuery } },
    async (request) => presence.online(request.query.limit),
  );
}
