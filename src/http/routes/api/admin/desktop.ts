/** Operators' view of the desktop clients: bug reports and who is online. */
import { Type } from '@sinclair/typebox';
import { validationError } from '../../../../kernel/errors.js';
import { PUSH_LEVELS } from '../../../../desktop/push.js';
import { MESSAGE_KEY_PATTERN } from '../v1/assistant-desktop/push.js';
import type { DesktopServices } from '../../../../desktop/index.js';
import type { App } from '../../../types.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const BugReportQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  before_id: Type.Optional(Id),
  customer_id: Type.Optional(Id),
});
const PresenceQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });
const PushBody = Type.Object(
  {
    message_key: Type.Optional(
      Type.String({ pattern: MESSAGE_KEY_PATTERN, description: 'Stable key (generated when absent); unique (409 when taken).' }),
    ),
    customer_id: Type.Optional(Id),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 20_000 }),
    level: Type.Union(
      PUSH_LEVELS.map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    expires_at: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 time after which the message is no longer shown.' }),
    ),
  },
  { additionalProperties: false },
);
const operator = { auth: 'operator' } as const;

export interface AdminDesktopRouteDeps {
  desktop: Pick<DesktopServices, 'bugReports' | 'presence' | 'push'>;
}

export async function adminDesktopRoutes(app: App, deps: AdminDesktopRouteDeps): Promise<void> {
  const { bugReports, presence } = deps.desktop;

  app.get(
    '/desktop/bug-reports',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Desktop bug reports, newest first: {data:[{id, customer_id, email, text, app_version, os, log_excerpt, created_at}]}',
        querystring: BugReportQuery,
      },
    },
    async (request) =>
      bugReports.list({ limit: request.query.limit, beforeId: request.query.before_id, customerId: request.query.customer_id }),
  );

  app.get(
    '/desktop/presence',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary:
          'Desktop clients online now: {ttl_seconds, online_count, data:[{customer_id, email, app_version, os, online_since, last_seen_at, online_until}]}',
        querystring: PresenceQuery,
      },
    },
    async (request) => presence.online(request.query.limit),
  );

  app.post(
    '/push',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary:
          'Posts a desktop service message to one customer (customer_id) or to all → 201 {id, message_key, customer_id, broadcast, level, created_at, expires_at}',
        body: PushBody,
      },
    },
    async (request, reply) => {
      const body = request.body;
      let expiresAtMs: number | undefined;
      if (body.expires_at !== undefined) {
        expiresAtMs = Date.parse(body.expires_at);
        if (!Number.isFinite(expiresAtMs))
          throw validationError([
            { loc: ['body', 'expires_at'], msg: 'expires_at must be an ISO 8601 time', type: 'value_error.datetime' },
          ]);
      }
      const posted = await deps.desktop.push.post({
        messageKey: body.message_key,
        customerId: body.customer_id,
        title: body.title,
        body: body.body,
        level: body.level,
        expiresAtMs,
      });
      return reply.code(201).send(posted);
    },
  );
}
