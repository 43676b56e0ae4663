/** Operators post inbox messages to one customer or to all (a broadcast is stored once). */
import { Type } from '@sinclair/typebox';
import { validationError } from '../../../../kernel/errors.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { App } from '../../../types.js';

const AdminMessageBody = Type.Object(
  {
    customer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    all: Type.Optional(Type.Boolean()),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 20_000 }),
  },
  { additionalProperties: false },
);

export interface AdminMessageRouteDeps {
  accounts: Pick<AccountServices, 'inbox'>;
}

export async function adminMessageRoutes(app: App, deps: AdminMessageRouteDeps): Promise<void> {
  app.post(
    '/messages',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['admin'],
        summary: 'Posts an inbox message to one customer (customer_id) or to all (all: true)',
        body: AdminMessageBody,
      },
    },
    async (request, reply) => {
      const { customer_id: customerId, all, title, body } = request.body;
      if ((customerId === undefined) === (all !== true)) {
        throw validationError([{ loc: ['body', 'customer_id'], msg: 'Give either customer_id or all: true', type: 'value_error' }]);
      }
      const posted = await deps.accounts.inbox.post(customerId !== undefined ? { customerId, title, body } : { all: true, title, body });
      return reply.code(201).send({ ...posted, customer_id: customerId ?? null, broadcast: customerId === undefined });
    },
  );
}
