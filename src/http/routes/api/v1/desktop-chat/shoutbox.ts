/** The shared desktop shoutbox: bootstrap, messages (plain text, JSON only), their live stream (SSE) and the caller's username. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../../caller.js';
import { serveFeed } from '../../../shared/event-cursor.js';
import { SHOUTBOX_USERNAME_PATTERN } from '../../../../../desktop/shoutbox.js';
import type { DesktopServices } from '../../../../../desktop/index.js';
import type { App } from '../../../../types.js';

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const BootstrapQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) });
const ListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  before_id: Type.Optional(Id),
  after_id: Type.Optional(Id),
});
const DesktopShoutboxMessageBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description: 'Plain text; at most desktop.shoutbox.maxMessageChars characters after trimming.',
    }),
  },
  { additionalProperties: false, title: 'DesktopShoutboxMessageBody' },
);
const DesktopShoutboxProfileBody = Type.Object(
  { username: Type.String({ pattern: SHOUTBOX_USERNAME_PATTERN, description: 'Unique ignoring case (409 when taken).' }) },
  { additionalProperties: false, title: 'DesktopShoutboxProfileBody' },
);
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface DesktopShoutboxRouteDeps {
  desktop: Pick<DesktopServices, 'shoutbox' | 'shoutboxFeed'>;
}

export async function desktopShoutboxRoutes(app: App, deps: DesktopShoutboxRouteDeps): Promise<void> {
  const { shoutbox, shoutboxFeed } = deps.desktop;
  app.addHook('preClose', async () => shoutboxFeed.endStreams());

  app.get(
    '/shoutbox/bootstrap',
    {
      config: customerAccount,
      schema: { tags: ['desktop'], summary: 'Shared shoutbox: {profile, messages (newest first), limits}', querystring: BootstrapQuery },
    },
    async (request) => shoutbox.bootstrap(customerOf(request).customerId, request.query.limit),
  );

  app.get(
    '/shoutbox/messages',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Shoutbox messages, newest first: {data:[{id, username, text, created_at, mine}]}',
        querystring: ListQuery,
      },
    },
    async (request) =>
      shoutbox.list(customerOf(request).customerId, {
        limit: request.query.limit,
        beforeId: request.query.before_id,
        afterId: request.query.after_id,
      }),
  );

  app.post(
    '/shoutbox/messages',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Posts a shoutbox message (needs a username: 412; rate-limited: 429) → 201',
        body: DesktopShoutboxMessageBody,
      },
    },
    async (request, reply) => reply.code(201).send(await shoutbox.post(customerOf(request).customerId, request.body.text)),
  );

  app.get(
    '/shoutbox/events',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Live shoutbox (text/event-stream): event message {id, username, text, created_at, mine} with id: the message id, oldest first; resumes after Last-Event-ID (or ?after_id=) from the stored messages, else new messages only; heartbeat comments',
        querystring: Type.Object({ after_id: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }),
      },
    },
    async (request, reply) => serveFeed(request, reply, shoutboxFeed, 'shoutbox', request.query.after_id),
  );

  app.post(
    '/shoutbox/profile',
    {
      config: customerAccount,
      schema: { tags: ['desktop'], summary: 'Sets your shoutbox username (taken: 409) → {username}', body: DesktopShoutboxProfileBody },
    },
    async (request) => shoutbox.setUsername(customerOf(request).customerId, request.body.username),
  );
}
