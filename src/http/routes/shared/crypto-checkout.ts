/**
 * Crypto checkout of a credit pack for one wallet, registered under `/api/v1/wallet` (token wallet) and
 * `/api/v1/cash-wallet` (cash wallet), and the JSON of a crypto order.
 */
import { Type } from '@sinclair/typebox';
import type { CryptoDetails } from '../../../billing/payments/crypto.js';
import type { PaymentRow } from '../../../billing/payments/ledger-effects.js';
import { paymentJson } from '../../../billing/payments/index.js';
import type { PaymentServices } from '../../../billing/payments/index.js';
import type { App } from '../../types.js';
import { customerOf } from '../../caller.js';
import { checkoutChoices } from './checkout-defaults.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;
const CheckoutBody = Type.Object(
  {
    pack_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Absent: your default pack (purchase preferences).' })),
    pay_currency: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'Absent: your saved pay currency (purchase preferences).' }),
    ),
    discount_code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A top-up bonus code or your mailed personal code: extra credit when paid.',
      }),
    ),
  },
  STRICT,
);

export function orderJson(row: PaymentRow) {
  const details = JSON.parse(row.details_json ?? '{}') as Partial<CryptoDetails>;
  return {
    order_id: row.public_id,
    ...paymentJson(row),
    pay_currency: details.pay_currency ?? null,
    network: details.network ?? null,
    invoice_url: details.invoice_url ?? null,
    processor_status: details.processor_status ?? null,
    discount_code: details.discount_code ?? null,
    pay_amount: details.pay_amount ?? null,
    actually_paid: details.actually_paid ?? null,
    receipt_available: row.status === 'paid',
  };
}

export interface CryptoCheckoutDeps {
  payments: Pick<PaymentServices, 'crypto' | 'preferences'>;
}

/** `POST …/crypto/checkout` for one wallet (`token` under /api/v1/wallet, `cash` under /api/v1/cash-wallet). */
export function cryptoCheckoutRoute(app: App, deps: CryptoCheckoutDeps, wallet: 'token' | 'cash'): void {
  app.post(
    '/crypto/checkout',
    {
      config: walletOwner,
      schema: {
        tags: [wallet === 'token' ? 'wallet' : 'cash-wallet'],
        summary: `Crypto invoice for a pack (USD price, chosen pay currency, optional bonus code; ${wallet} wallet); pack and coin default to your purchase preferences`,
        body: CheckoutBody,
      },
    },
    async (request, reply) => {
      const customerId = customerOf(request).customerId;
      const choices = await checkoutChoices(deps.payments.preferences, customerId, request.body, { payCurrency: true });
      const order = await deps.payments.crypto.checkout({
        customerId,
        packId: choices.packId,
        payCurrency: choices.payCurrency!,
        wallet,
        discountCode: request.body.discount_code,
      });
      return reply.code(201).send(orderJson(order));
    },
  );
}
