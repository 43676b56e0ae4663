/**
 * The cash wallet, `/api/v1/cash-wallet/…`: purchases paid from it (a token-wallet package, an Unlimited Coding plan;
 * Idempotency-Key required) and its card and crypto checkouts.
 */
import { Type } from '@sinclair/typebox';
import { checkIdempotencyKey } from '../../../../../billing/idempotency.js';
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { cardCheckoutRoutes } from '../../../shared/card-checkout.js';
import { cryptoCheckoutRoute } from '../../../shared/crypto-checkout.js';
import { sendStoredResult } from '../../../shared/stored-result.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String()) });

export interface CashWalletRouteDeps {
  payments: Pick<PaymentServices, 'cash' | 'card' | 'crypto' | 'preferences'>;
}

export async function cashWalletRoutes(app: App, deps: CashWalletRouteDeps): Promise<void> {
  const { payments } = deps;
  const tags = ['cash-wallet'];
  cardCheckoutRoutes(app, deps, 'cash');
  cryptoCheckoutRoute(app, deps, 'cash');

  app.post(
    '/token-purchase',
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
      return sendStoredResult(reply, result);
    },
  );

  app.post(
    '/unlimited-purchase',
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
      return sendStoredResult(reply, result);
    },
  );
}
