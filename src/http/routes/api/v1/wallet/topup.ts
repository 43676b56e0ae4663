/** Loading a paid pack into its wallet, top-up bonus codes and the mailed personal session discount: `/api/v1/wallet/…`. */
import { Type } from '@sinclair/typebox';
import { moneyJson } from '../../../../../kernel/money.js';
import { paymentJson } from '../../../../../billing/payments/index.js';
import type { CustomerService } from '../../../../../accounts/customer-service.js';
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { ResolvedDiscount } from '../../../../../billing/payments/discounts.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;

/** A valid bonus code and what it adds to each credit pack. */
function discountJson(discount: ResolvedDiscount, config: AppConfig) {
  return {
    code: discount.code,
    bonus_percent: discount.bonusPercent,
    expires_at: discount.expiresAt === null ? null : new Date(discount.expiresAt).toISOString(),
    packs: config.payments.packs.map((pack) => {
      const credit = pack.creditMicros ?? pack.priceMicros;
      return { pack_id: pack.id, price: moneyJson(pack.priceMicros), bonus: moneyJson(Math.floor((credit * discount.bonusPercent) / 100)) };
    }),
  };
}

export interface WalletTopUpRouteDeps {
  payments: Pick<PaymentServices, 'card' | 'crypto' | 'discounts'>;
  customers: Pick<CustomerService, 'get'>;
  config: AppConfig;
}

export async function walletTopUpRoutes(app: App, deps: WalletTopUpRouteDeps): Promise<void> {
  const { payments, config } = deps;
  const tags = ['wallet'];

  app.post(
    '/top-up',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Load the credit of a paid pack (card session or crypto order) into its wallet, once per payment; answers the purchase',
        body: Type.Union([
          Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 255 }) }, STRICT),
          Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 64 }) }, STRICT),
        ]),
      },
    },
    async (request) => {
      const customerId = customerOf(request).customerId;
      const body = request.body as { session_id?: string; order_id?: string };
      if (body.session_id !== undefined) {
        const owned = await payments.card.findOwn(customerId, body.session_id);
        const { payment, credited } = await payments.card.confirm(customerId, body.session_id, owned.wallet);
        return { credited, purchase: paymentJson(payment) };
      }
      const before = await payments.crypto.ownOrder(customerId, body.order_id!);
      const after = await payments.crypto.refresh(customerId, body.order_id!);
      return { credited: before.status !== 'paid' && after.status === 'paid', purchase: paymentJson(after) };
    },
  );

  app.post(
    '/topup-discount',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Validate a top-up bonus code (expiry, total uses, once per customer); use it as discount_code at checkout',
        body: Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }, STRICT),
      },
    },
    async (request) => {
      const checked = await payments.discounts.check(customerOf(request).customerId, request.body.code);
      if (!checked.valid) return { valid: false, reason: checked.reason };
      return { valid: true, ...discountJson(checked.discount, config) };
    },
  );

  app.post(
    '/topupemail-session-discount',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Issue a time-boxed personal top-up discount and mail it (one active at a time; 409 while one is)',
        body: Type.Optional(Type.Union([Type.Object({}, STRICT), Type.Null()])),
      },
    },
    async (request, reply) => {
      const customer = await deps.customers.get(customerOf(request).customerId);
      const issued = await payments.discounts.issueSessionDiscount({ id: customer.id, email: customer.email });
      return reply
        .code(201)
        .send({ mailed_to: issued.mailedTo, bonus_percent: issued.bonusPercent, expires_at: new Date(issued.expiresAt).toISOString() });
    },
  );
}
