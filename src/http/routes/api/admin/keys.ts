/**
 * `/api/admin/keys*` (operator bearer only; hidden from the public OpenAPI document): issue and revoke managed keys.
 */
import { Type } from '@sinclair/typebox';
import { keyView } from '../../../../accounts/key-policy.js';
import { parsePolicy } from '../../../../accounts/principal.js';
import { validationError } from '../../../../kernel/errors.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { ManagedKeys } from '../../../../accounts/managed-keys.js';
import type { App } from '../../../types.js';

const operator = { auth: 'operator', surface: 'account' } as const;

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

export interface AdminKeyRouteDeps {
  customers: Pick<CustomerService, 'get'>;
  managedKeys: ManagedKeys;
}

export async function adminKeyRoutes(app: App, deps: AdminKeyRouteDeps): Promise<void> {
  const { customers, managedKeys } = deps;

  app.post(
    '/keys',
    { config: operator, schema: { tags: ['admin'], summary: 'Issue a managed key for a customer or an operator', body: IssueKeyBody } },
    async (request, reply) => {
      const { customer_id: customerId, role, name, expires_at } = request.body;
      if ((customerId === undefined) === (role === undefined)) {
        throw validationError([{ loc: ['body', 'customer_id'], msg: 'Give either customer_id or role "operator"', type: 'value_error' }]);
      }
      if (customerId !== undefined) await customers.get(customerId);
      const issued = await managedKeys.issue({
        customerId: customerId ?? null,
        role: role === 'operator' ? 'operator' : 'customer',
        name: name ?? null,
        expiresAt: expires_at,
      });
      const view = keyView(issued.row, {});
      return reply.code(201).send({ ...view, role: issued.row.role, customer_id: issued.row.customer_id, key: issued.plaintext });
    },
  );

  app.delete(
    '/keys/:key_id',
    { config: operator, schema: { tags: ['admin'], summary: 'Revoke any key (effective on the next request)', params: KeyIdParams } },
    async (request) => {
      const row = await managedKeys.revoke(request.params.key_id);
      return { ...keyView(row, parsePolicy(row.policy_json)), role: row.role, customer_id: row.customer_id, revoked: true };
    },
  );
}
