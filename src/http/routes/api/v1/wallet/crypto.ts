/**
 * Crypto payments of the token wallet, `/api/v1/wallet/crypto/…`: options, checkout, the caller's orders (status
 * refreshed from the processor) and their PDF receipts, saved refund addresses. The cash wallet's checkout is
 * under `/api/v1/cash-wallet`, the processor's signed callback under `/api/v1/crypto`.
 */
import { Type } from '@sinclair/typebox';
import { receiptPdf } from '../../../../../billing/payments/receipt.js';
import { notFound } from '../../../../../kernel/errors.js';
import type { CustomerService } from '../../../../../accounts/customer-service.js';
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';
import { cryptoCheckoutRoute, orderJson } from '../../../shared/crypto-checkout.js';

const account = { auth: 'api', surface: 'account' } as const;
const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;
const OrderParams = Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 64 }) });

export interface WalletCryptoRouteDeps {
  payments: Pick<PaymentServices, 'crypto' | 'preferences'>;
  customers: Pick<CustomerService, 'get'>;
  config: AppConfig;
}

export async function walletCryptoRoutes(app: App, deps: WalletCryptoRouteDeps): Promise<void> {
  const { payments, config } = deps;
  const crypto = payments.crypto;
  const tags = ['wallet'];

  app.get(
    '/crypto/options',
    { config: account, schema: { tags, summary: 'Coins and networks accepted, packs (prices in USD)' } },
    async () => crypto.options(),
  );

  cryptoCheckoutRoute(app, deps, 'token');

  app.get(
    '/crypto/orders/:order_id',
    {
      config: walletOwner,
      schema: {
        tags,
        summary: 'One of your crypto orders, its status refreshed from the processor, with coin sent back to your refund address (payouts)',
        params: OrderParams,
      },
    },
    async (request) => {
      const order = await crypto.refresh(customerOf(request).customerId, request.params.order_id);
      return { ...orderJson(order), payouts: await crypto.payouts.list(order.id) };
    },
  );

  app.get(
    '/crypto/orders/:order_id/receipt.pdf',
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
  refundAddressRoutes(app, deps);
}

/** The caller's saved refund addresses: `/api/v1/wallet/crypto/refund-addresses`. */
function refundAddressRoutes(app: App, deps: WalletCryptoRouteDeps): void {
  const { crypto } = deps.payments;
  const { config } = deps;
  const tags = ['wallet'];

  app.get(
    '/crypto/refund-addresses',
    { config: walletOwner, schema: { tags, summary: 'Your saved crypto refund addresses' } },
    async (request) => ({
      addresses: await crypto.refundAddresses(customerOf(request).customerId),
      max: config.payments.crypto.maxRefundAddresses,
    }),
  );
  app.post(
    '/crypto/refund-addresses',
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
    '/crypto/refund-addresses/:address_id',
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
}
