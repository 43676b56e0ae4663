/**
 * Crypto payments: options, checkout (token and cash wallet), the caller's orders (status refreshed from the
 * processor) and their PDF receipts, saved refund addresses, and the processor's signed callback (public).
 */
import { Type } from '@sinclair/typebox';
import type { CryptoDetails } from '../../../../billing/payments/crypto.js';
import type { PaymentRow } from '../../../../billing/payments/ledger-effects.js';
import { paymentJson } from '../../../../billing/payments/index.js';
import { receiptPdf } from '../../../../billing/payments/receipt.js';
import { notFound } from '../../../../kernel/errors.js';
import type { CustomerService } from '../../../../accounts/customer-service.js';
import type { PaymentServices } from '../../../../billing/payments/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';

const account = { auth: 'api', surface: 'account' } as const;
const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;
const CheckoutBody = Type.Object(
  { pack_id: Type.String({ minLength: 1, maxLength: 64 }), pay_currency: Type.String({ minLength: 1, maxLength: 32 }) },
  STRICT,
);
const OrderParams = Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 64 }) });

export function orderJson(row: PaymentRow) {
  const details = JSON.parse(row.details_json ?? '{}') as Partial<CryptoDetails>;
  return {
    order_id: row.public_id,
    ...paymentJson(row),
    pay_currency: details.pay_currency ?? null,
    network: details.network ?? null,
    invoice_url: details.invoice_url ?? null,
    processor_status: details.processor_status ?? null,
    pay_amount: details.pay_amount ?? null,
    actually_paid: details.actually_paid ?? null,
    receipt_available: row.status === 'paid',
  };
}

export interface WalletCryptoRouteDeps {
  payments: Pick<PaymentServices, 'crypto'>;
  customers: Pick<CustomerService, 'get'>;
  config: AppConfig;
}

export async function walletCryptoRoutes(app: App, deps: WalletCryptoRouteDeps): Promise<void> {
  const { payments, config } = deps;
  const crypto = payments.crypto;
  const tags = ['wallet'];

  app.get(
    '/api/v1/wallet/crypto/options',
    { config: account, schema: { tags, summary: 'Coins and networks accepted, packs (prices in USD)' } },
    async () => crypto.options(),
  );

  for (const [prefix, wallet] of [
    ['/api/v1/wallet', 'token'],
    ['/api/v1/cash-wallet', 'cash'],
  ] as const) {
    app.post(
      `${prefix}/crypto/checkout`,
      {
        config: walletOwner,
        schema: {
          tags: [wallet === 'token' ? 'wallet' : 'cash-wallet'],
          summary: `Crypto invoice for a pack (USD price, chosen pay currency; ${wallet} wallet)`,
          body: CheckoutBody,
        },
      },
      async (request, reply) => {
        const order = await crypto.checkout({
          customerId: customerOf(request).customerId,
          packId: request.body.pack_id,
          payCurrency: request.body.pay_currency,
          wallet,
        });
        return reply.code(201).send(orderJson(order));
      },
    );
  }

  app.get(
    '/api/v1/wallet/crypto/orders/:order_id',
    {
      config: walletOwner,
      schema: { tags, summary: 'One of your crypto orders, its status refreshed from the processor', params: OrderParams },
    },
    async (request) => orderJson(await crypto.refresh(customerOf(request).customerId, request.params.order_id)),
  );

  app.get(
    '/api/v1/wallet/crypto/orders/:order_id/receipt.pdf',
    { config: walletOwner, schema: { tags, summary: 'PDF receipt of a paid crypto order (404 unless paid)', params: OrderParams } },
    async (request, reply) => {
      const customerId = customerOf(request).customerId;
      const order = await crypto.ownOrder(customerId, request.params.order_id);
      if (order.status !== 'paid') throw notFound('Receipt');
      const customer = await deps.customers.get(customerId);
      const pdf = await receiptPdf(order, { seller: config.payments.seller, customer: { email: customer.email, name: customer.name } });
      return reply.type('application/pdf').header('content-disposition', `inline; filename="receipt-${order.public_id}.pdf"`).send(pdf);
    },
  );

  app.get(
    '/api/v1/wallet/crypto/refund-addresses',
    { config: walletOwner, schema: { tags, summary: 'Your saved crypto refund addresses' } },
    async (request) => ({
      addresses: await crypto.refundAddresses(customerOf(request).customerId),
      max: config.payments.crypto.maxRefundAddresses,
    }),
  );
  app.post(
    '/api/v1/wallet/crypto/refund-addresses',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Save a refund address (format checked per network: EVM checksum, base58check, bech32)',
        body: Type.Object(
          {
            network: Type.String({ minLength: 1, maxLength: 32 }),
            address: Type.String({ minLength: 1, maxLength: 128 }),
            label: Type.Optional(Type.String({ maxLength: 100 })),
          },
          STRICT,
        ),
      },
    },
    async (request, reply) => reply.code(201).send(await crypto.saveRefundAddress(customerOf(request).customerId, request.body)),
  );
  app.delete(
    '/api/v1/wallet/crypto/refund-addresses/:address_id',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'Delete one of your refund addresses',
        params: Type.Object({ address_id: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      await crypto.deleteRefundAddress(customerOf(request).customerId, request.params.address_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/v1/crypto/ipn',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary: 'Crypto-processor payment callbacks (header x-nowpayments-sig: HMAC-SHA512 of the key-sorted JSON body)',
      },
    },
    async (request) => {
      const result = await crypto.ipn(request.body, request.headers['x-nowpayments-sig']);
      return { received: true, duplicate: result.duplicate };
    },
  );
}
