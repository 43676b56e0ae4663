/**
 * Card payments: checkout of a credit pack at the card processor, the customer's confirm, and the processor's
 * signed webhook (public). The webhook's signature covers the exact bytes sent, so its route reads the body as
 * text through a content-type parser of this plugin only; every other route keeps the global JSON parser.
 */
import { Type } from '@sinclair/typebox';
import { paymentJson } from '../../../../billing/payments/index.js';
import { customerOf } from '../../../caller.js';
import type { PaymentServices } from '../../../../billing/payments/index.js';
import type { App } from '../../../types.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;

const CheckoutBody = Type.Object(
  { pack_id: Type.String({ minLength: 1, maxLength: 64 }), discount_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
  STRICT,
);
const ConfirmBody = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 255 }) }, STRICT);

/** Card checkout and confirm for one wallet (`token` under /wallet, `cash` under /cash-wallet). */
export function cardCheckoutRoutes(app: App, deps: WalletCardRouteDeps, prefix: string, wallet: 'token' | 'cash'): void {
  const { payments } = deps;
  const tag = wallet === 'token' ? 'wallet' : 'cash-wallet';

  app.post(
    `${prefix}/card/checkout`,
    {
      config: walletOwner,
      schema: {
        tags: [tag],
        summary: `Card checkout session for a credit pack (${wallet} wallet); answers the hosted checkout URL`,
        body: CheckoutBody,
      },
    },
    async (request, reply) => {
      const customer = customerOf(request);
      const result = await payments.card.checkout({
        customerId: customer.customerId,
        packId: request.body.pack_id,
        wallet,
        discountCode: request.body.discount_code,
      });
      return reply.code(201).send({ session_id: result.sessionId, checkout_url: result.url, payment: paymentJson(result.payment) });
    },
  );

  app.post(
    `${prefix}/card/confirm`,
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

export interface WalletCardRouteDeps {
  payments: Pick<PaymentServices, 'card'>;
}

export async function walletCardRoutes(app: App, deps: WalletCardRouteDeps): Promise<void> {
  cardCheckoutRoutes(app, deps, '/api/v1/wallet', 'token');
  cardCheckoutRoutes(app, deps, '/api/v1/cash-wallet', 'cash');

  await app.register(async (scope) => {
    // Raw text for the signature; this parser exists only inside this plugin's scope.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post(
      '/api/v1/card/webhook',
      {
        config: { auth: 'public' },
        schema: { tags: ['public'], summary: 'Card-processor payment events (signed: header Stripe-Signature t=…,v1=…)' },
      },
      async (request) => {
        const raw = typeof request.body === 'string' ? request.body : '';
        const result = await deps.payments.card.webhook(raw, request.headers['stripe-signature']);
        return { received: true, event_id: result.eventId, duplicate: result.duplicate };
      },
    );
  });
}
