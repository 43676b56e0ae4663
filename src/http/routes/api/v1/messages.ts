/** The customer inbox: messages to this customer and broadcasts, newest first, with the unread count. */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../caller.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { App } from '../../../types.js';

const ListQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });
const MessageParams = Type.Object({ message_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface MessageRouteDeps {
  accounts: Pick<AccountServices, 'inbox'>;
}

export async function messageRoutes(app: App, deps: MessageRouteDeps): Promise<void> {
  const { inbox } = deps.accounts;

  app.get(
    '/messages',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Inbox: {data:[{id,title,body,broadcast,created_at,read,read_at}], unread_count}',
        querystring: ListQuery,
      },
    },
    async (request) => inbox.list(customerOf(request).customerId, request.query.limit),
  );

  app.post(
    '/messages/:message_id/read',
    {
      config: customerAccount,
      schema: { tags: ['account'], summary: 'Marks one of your messages read (others: 404)', params: MessageParams },
    },
    async (request) => inbox.markRead(customerOf(request).customerId, request.params.message_id),
  );
}
