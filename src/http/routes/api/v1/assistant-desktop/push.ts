/** Assistant-desktop service messages: the caller's live push messages and per-customer dismissal. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../../caller.js';
import { serveFeed } from '../../../shared/event-cursor.js';
import type { DesktopServices } from '../../../../../desktop/index.js';
import type { App } from '../../../../types.js';

export const MESSAGE_KEY_PATTERN = '^[A-Za-z0-9._-]{1,64}$';
const ListQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });
const KeyParams = Type.Object({ message_key: Type.String({ pattern: MESSAGE_KEY_PATTERN }) });
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface DesktopPushRouteDeps {
  desktop: Pick<DesktopServices, 'push' | 'pushFeed'>;
}

export async function desktopPushRoutes(app: App, deps: DesktopPushRouteDeps): Promise<void> {
  const { push, pushFeed } = deps.desktop;
  app.addHook('preClose', async () => pushFeed.endStreams());

  app.get(
    '/push',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Live service messages (not dismissed, not expired): {data:[{message_key, title, body, level, broadcast, created_at, expires_at}]}',
        querystring: ListQuery,
      },
    },
    async (request) => push.list(customerOf(request).customerId, request.query.limit),
  );

  app.get(
    '/push/events',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Push messages live (text/event-stream): event push {id, message_key, title, body, level, broadcast, created_at, expires_at} with id: the message id, oldest first; resumes after Last-Event-ID (or ?after_id=) from the stored live messages, else new messages only; heartbeat comments',
        querystring: Type.Object({ after_id: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }),
      },
    },
    async (request, reply) => serveFeed(request, reply, pushFeed, 'push', request.query.after_id),
  );

  app.post(
    '/push/:message_key/dismiss',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Dismisses a service message for you only (not yours: 404) → {message_key, dismissed, dismissed_at}',
        params: KeyParams,
      },
    },
    async (request) => push.dismiss(customerOf(request).customerId, request.params.message_key),
  );
}
