/**
 * Operator routes under `/api/admin` (operator bearer only; hidden from the public OpenAPI document): create and list
 * customers, issue and revoke managed keys.
 */
import { Type } from '@sinclair/typebox';
import { createdCustomerView, customerView } from '../../accounts/account-profile.js';
import { applyPolicyInput, keyView } from '../../accounts/key-policy.js';
import { parsePolicy } from '../../accounts/principal.js';
import { notFound, validationError } from '../../kernel/errors.js';
import type { App } from '../types.js';
import type { Services } from '../../services.js';

const operator = { auth: 'operator', surface: 'account' } as const;

const CreateCustomerBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    vip: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ListCustomersQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
  after_id: Type.Optional(Type.Integer({ minimum: 0 })),
});

const IssueKeyBody = Type.Object(
  {
    customer_id: Type.Optional(Type.Integer({ minimum: 1 })),
    role: Type.Optional(Type.Literal('operator')),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const KeyIdParams = Type.Object({ key_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export async function adminRoutes(app: App, services: Services): Promise<void> {
  const { customers, keys, storage, clock, config } = services;

  app.post(
    '/api/admin/customers',
    { config: operator, schema: { tags: ['admin'], summary: 'Create a customer; returns its System Token once', body: CreateCustomerBody } },
    async (request, reply) => reply.code(201).send(createdCustomerView(await customers.create(request.body), config)),
  );

  app.get(
    '/api/admin/customers',
    { config: operator, schema: { tags: ['admin'], summary: 'List customers (paged by id)', querystring: ListCustomersQuery } },
    async (request) => {
      const rows = await customers.list({ limit: request.query.limit, afterId: request.query.after_id });
      const data = rows.map((row) => ({ ...customerView(row), status: row.status, vip: row.vip === 1 }));
      return { data, next_after_id: rows.length === request.query.limit ? rows[rows.length - 1]!.id : null };
    },
  );

  app.post(
    '/api/admin/keys',
    { config: operator, schema: { tags: ['admin'], summary: 'Issue a managed key for a customer or an operator', body: IssueKeyBody } },
    async (request, reply) => {
      const { customer_id: customerId, role, name, expires_at } = request.body;
      if ((customerId === undefined) === (role === undefined)) {
        throw validationError([{ loc: ['body', 'customer_id'], msg: 'Give either customer_id or role "operator"', type: 'value_error' }]);
      }
      if (customerId !== undefined) await customers.get(customerId);
      const settings = applyPolicyInput({ name: null, policy: {}, expiresAt: null }, { expires_at }, { nowMs: clock.nowMs() });
      const issued = await keys.issue(storage.db, {
        customerId: customerId ?? null,
        kind: 'managed',
        role: role === 'operator' ? 'operator' : 'customer',
        name: name ?? null,
        expiresAt: settings.expiresAt,
      });
      const view = keyView(issued.row, {});
      return reply.code(201).send({ ...view, role: issued.row.role, customer_id: issued.row.customer_id, key: issued.plaintext });
    },
  );

  app.delete(
    '/api/admin/keys/:key_id',
    { config: operator, schema: { tags: ['admin'], summary: 'Revoke any key (effective on the next request)', params: KeyIdParams } },
    async (request) => {
      const row = await keys.findById(storage.db, request.params.key_id);
      if (!row) throw notFound('API key');
      await keys.revoke(storage.db, row.id);
      return { ...keyView(row, parsePolicy(row.policy_json)), role: row.role, customer_id: row.customer_id, revoked: true };
    },
  );
}
