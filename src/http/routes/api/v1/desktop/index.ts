/** Desktop app housekeeping, `/api/v1/desktop/…`: the start-up bootstrap, bug reports (stored, listed for operators) and the presence heartbeat. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../../caller.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { DesktopServices } from '../../../../../desktop/index.js';
import type { App } from '../../../../types.js';

const BugReportBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      description: 'What happened (text plus log excerpt at most desktop.bugReportMaxBytes bytes; larger: 413).',
    }),
    app_version: Type.String({ minLength: 1, maxLength: 64 }),
    os: Type.String({ minLength: 1, maxLength: 128 }),
    log_excerpt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const PresenceBody = Type.Object(
  {
    app_version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    os: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
const BootstrapQuery = Type.Object({
  days: Type.Integer({ minimum: 1, maximum: 180, default: 30 }),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
});
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface DesktopRouteDeps {
  desktop: Pick<DesktopServices, 'bugReports' | 'presence' | 'bootstrap'>;
  config: AppConfig;
}

export async function desktopRoutes(app: App, deps: DesktopRouteDeps): Promise<void> {
  const { bugReports, presence, bootstrap } = deps.desktop;
  const bugReportBodyLimit = deps.config.desktop.bugReportMaxBytes * 2 + 4096;

  app.get(
    '/bootstrap',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Verifies the token; account, wallet, usage of the last days, inbox and push messages, coder {projects, slots} (as GET /api/v1/desktop/coder/projects), client releases',
        querystring: BootstrapQuery,
      },
    },
    async (request) => bootstrap.load(customerOf(request), request.query),
  );

  app.post(
    '/bug-report',
    {
      config: customerAccount,
      bodyLimit: bugReportBodyLimit,
      schema: {
        tags: ['desktop'],
        summary: 'Sends a bug report {text, app_version, os, log_excerpt?} → 201 {id, created_at}',
        body: BugReportBody,
      },
    },
    async (request, reply) => {
      const body = request.body;
      const saved = await bugReports.submit(customerOf(request).customerId, {
        text: body.text,
        appVersion: body.app_version,
        os: body.os,
        logExcerpt: body.log_excerpt,
      });
      return reply.code(201).send(saved);
    },
  );

  app.post(
    '/presence',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Heartbeat {app_version?, os?} → {online, last_seen_at, online_until, ttl_seconds}',
        body: PresenceBody,
      },
    },
    async (request) => presence.heartbeat(customerOf(request).customerId, { appVersion: request.body.app_version, os: request.body.os }),
  );
}
