/** `POST /api/v1/marketplace/register`: a marketplace buyer account with its token-wallet credit (public). */
import { Type } from '@sinclair/typebox';
import { moneyJson } from '../../../../kernel/money.js';
import type { BillingServices } from '../../../../billing/index.js';
import type { App } from '../../../types.js';

/** Bodies that grant access refuse unknown fields. */
const STRICT = { additionalProperties: false } as const;

export interface MarketplaceRouteDeps {
  billing: Pick<BillingServices, 'marketplace'>;
}

export async function marketplaceRoutes(app: App, deps: MarketplaceRouteDeps): Promise<void> {
  const { billing } = deps;

  app.post(
    '/marketplace/register',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['accounts'],
        summary: 'Create a marketplace buyer account with its token-wallet credit (licence usable once)',
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 254 }),
            license_key: Type.String({ minLength: 4, maxLength: 200 }),
            password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
            name: Type.Optional(Type.String({ maxLength: 200 })),
          },
          STRICT,
        ),
      },
    },
    async (request, reply) => {
      const { created, creditMicros } = await billing.marketplace.register({
        email: request.body.email,
        licenseKey: request.body.license_key,
        password: request.body.password,
        name: request.body.name ?? null,
      });
      return reply.code(201).send({
        customer_id: created.customer.id,
        email: created.customer.email,
        username: created.customer.username,
        system_token: created.systemToken.key,
        credit: moneyJson(creditMicros),
        note: 'The System Token is shown once; store it now.',
      });
    },
  );
}
