/**
 * Card checkout of a credit pack at the card processor and the customer's confirm, for one wallet: registered
 * under `/api/v1/wallet` (token wallet) and `/api/v1/cash-wallet` (cash wallet).
 */
import { Type } from '@sinclair/typebox';
import { paymentJson } from '../../../billing/payments/index.js';
import { customerOf } from '../../caller.js';
import type { PaymentServices } from '../../../billing/payments/index.js';
import type { App } from '../../types.js';
import { checkoutChoices } from './checkout-defaults.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;

const CheckoutBody = Type.Object(
  {
    pack_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Absent: your default pack (purchase preferences).' })),
    discount_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  STRICT,
);
const ConfirmBody = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 255 }) }, STRICT);

export interface CardCheckoutDeps {
  payments: Pick<PaymentServices, 'card' | 'preferences'>;
}

/** Card checkout and confirm for one wallet (`token` under /api/v1/wallet, `cash` under /api/v1/cash-wallet). */
export function cardCheckoutRoutes(app: App, deps: CardCheckoutDeps, wallet: 'token' | 'cash'): void {
  const { payments } = deps;
  const tag = wallet === 'token' ? 'wallet' : 'cash-wallet';

  app.post(
    '/card/checkout',
    {
      config: walletOwner,
      schema: {
        tags: [tag],
        summary: `Card checkout session for a credit pack (${wallet} wallet; default: your saved default pack); answers the hosted checkout URL`,
        body: CheckoutBody,
      },
    },
    async (request, reply) => {
      const customer = customerOf(request);
      const { packId } = await checkoutChoices(payments.preferences, customer.customerId, request.body, { payCurrency: false });
      const result = await payments.card.checkout({
        customerId: customer.customerId,
        packId,
        wallet,
        discountCode: request.body.discount_code,
      });
      return reply.code(201).send({ session_id: result.sessionId, checkout_url: result.url, payment: paymentJson(result.payment) });
    },
  );

  app.post(
    '/card/confirm',
    {
      config: walletOwner,
      schema: { tags: [tag], summary: `Confirm a paid card session (credits the ${wallet} wallet once)`, body: ConfirmBody },
    },
    async (request) => {
      const customer = customerOf(request);
      const { payment, credited } = await payments.card.confirm(customer.customerId, request.body.session_id, wallet);
      return { credited, payment: paymentJson(payment) };
    },
  );
}
