/** Desktop coding mode: coder projects (workspace + managed database), bought slots, deletion. */
import { Type } from '@sinclair/typebox';
import { checkIdempotencyKey } from '../../../../../billing/idempotency.js';
import { customerOf } from '../../../../caller.js';
import type { DesktopServices } from '../../../../../desktop/index.js';
import type { App } from '../../../../types.js';
import { sendStoredResult } from '../../../shared/stored-result.js';

const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;
const tags = ['desktop'];
const CreateBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Letters, digits, ".", "_" or "-", starting with a letter or digit; unique per customer ignoring case.',
    }),
  },
  { additionalProperties: false },
);
const NameParams = Type.Object({ project_name: Type.String({ minLength: 1, maxLength: 200 }) });
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String()) });

export interface DesktopCoderRouteDeps {
  desktop: Pick<DesktopServices, 'coder'>;
}

export async function desktopCoderRoutes(app: App, deps: DesktopCoderRouteDeps): Promise<void> {
  const { coder } = deps.desktop;

  app.get(
    '/coder/projects',
    {
      config: customerAccount,
      schema: {
        tags,
        summary:
          'Your coder projects {data:[{name, status, project_id, database, created_at, last_opened_at}], slots:{used, free, purchased, total, available, max, price}}; database carries the connection details',
      },
    },
    async (request) => coder.list(customerOf(request).customerId),
  );

  app.post(
    '/coder/projects',
    {
      config: customerAccount,
      schema: {
        tags,
        summary:
          'Creates (201) or resumes (200) the coder project of this name: a managed agent project and a managed database; every slot in use → 409',
        body: CreateBody,
      },
    },
    async (request, reply) => {
      const result = await coder.createOrResume(customerOf(request).customerId, request.body.name);
      return reply.code(result.status).send(result.body);
    },
  );

  app.post(
    '/coder/projects/purchase-slot',
    {
      config: customerAccount,
      schema: {
        tags,
        summary:
          'Buys one extra coder project slot from token-wallet credit at desktop.coder.slotPriceMicros (Idempotency-Key required; 402 when short; 409 at desktop.coder.maxSlots)',
        headers: IdempotencyHeader,
      },
    },
    async (request, reply) => {
      const key = checkIdempotencyKey(request.headers['idempotency-key']);
      const result = await coder.purchaseSlot(customerOf(request).customerId, key);
      return sendStoredResult(reply, result);
    },
  );

  app.delete(
    '/coder/projects/:project_name',
    {
      config: customerAccount,
      schema: {
        tags,
        summary:
          'Deletes your coder project: drops its database and role, removes its workspace → 204 (not yours: 404; a turn running: 409)',
        params: NameParams,
      },
    },
    async (request, reply) => {
      await coder.remove(customerOf(request).customerId, request.params.project_name);
      return reply.code(204).send();
    },
  );
}
