/** Purchases paid from the cash wallet: a token-wallet package, an Unlimited Coding plan (Idempotency-Key required). */
import { Type } from '@sinclair/typebox';
import { checkIdempotencyKey } from '../../../../billing/idempotency.js';
import type { PaymentServices } from '../../../../billing/payments/index.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String()) });

export interface CashWalletRouteDeps {
  payments: Pick<PaymentServices, 'cash'>;
}

export async function cashWalletRoutes(app: App, deps: CashWalletRouteDeps): Promise<void> {
  const { payments } = deps;
  const tags = ['cash-wallet'];

  app.post(
    '/api/v1/cash-wallet/token-purchase',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Buy a token-wallet package from the cash wallet (402 when cash is short; Idempotency-Key required)',
        headers: IdempotencyHeader,
        body: Type.Object({ pack_id: Type.String({ minLength: 1, maxLength: 64 }) }, STRICT),
      },
    },
    async (request, reply) => {
      const key = checkIdempotencyKey(request.headers['idempotency-key']);
      const result = await payments.cash.tokenPurchase(customerOf(request).customerId, request.body.pack_id, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    },
  );

  app.post(
    '/api/v1/cash-wallet/unlimited-purchase',
    {
      config: walletOwner,
      schema: {
        tags,
        summary:
          'Buy an Unlimited Coding plan from the cash wallet; it covers calls from that moment (402 when cash is short; Idempotency-Key required)',
        headers: IdempotencyHeader,
        body: Type.Object({ plan_id: Type.String({ minLength: 1, maxLength: 64 }) }, STRICT),
      },
    },
    async (request, reply) => {
      const key = checkIdempotencyKey(request.headers['idempotency-key']);
      const result = await payments.cash.unlimitedPurchase(customerOf(request).customerId, request.body.plan_id, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body);
    },
  );
}
