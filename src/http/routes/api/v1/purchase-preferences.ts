/** The caller's purchase preferences: `/api/v1/purchase-preferences` (default pack, payment method, currencies). */
import { Type } from '@sinclair/typebox';
import { validationError } from '../../../../kernel/errors.js';
import type { PaymentServices } from '../../../../billing/payments/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';
import { customerOf } from '../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;
const STRICT = { additionalProperties: false } as const;

const PurchasePreferencesBody = Type.Object(
  {
    default_pack_id: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()]),
    payment_method: Type.Union([Type.Literal('card'), Type.Literal('crypto'), Type.Literal('cash'), Type.Null()]),
    pay_currency: Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Null()]),
    display_currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  },
  STRICT,
);

export interface PurchasePreferenceRouteDeps {
  payments: Pick<PaymentServices, 'preferences'>;
  config: AppConfig;
}

export async function purchasePreferenceRoutes(app: App, deps: PurchasePreferenceRouteDeps): Promise<void> {
  const { payments, config } = deps;
  const tags = ['wallet'];

  app.get(
    '/purchase-preferences',
    {
      config: walletOwner,
      schema: { tags, summary: 'Your purchase preferences (default pack, payment method, display currency of estimates)' },
    },
    async (request) => payments.preferences.get(customerOf(request).customerId),
  );
  app.put(
    '/purchase-preferences',
    {
      config: walletOwner,
      schema: {
        tags,
        summary:
          'Save purchase preferences: default pack and pay currency of checkouts that leave them out, the dashboard’s preferred payment method and display currency of estimates (checkout amounts stay USD)',
        body: PurchasePreferencesBody,
      },
    },
    async (request) => {
      const body = request.body;
      if (body.default_pack_id !== null && !config.payments.packs.some((pack) => pack.id === body.default_pack_id)) {
        throw validationError([
          { loc: ['body', 'default_pack_id'], msg: `Unknown credit pack ${body.default_pack_id}`, type: 'value_error' },
        ]);
      }
      const coins = config.payments.crypto.coins;
      if (body.pay_currency !== null && !coins.some((coin) => coin.currency.toLowerCase() === body.pay_currency!.toLowerCase())) {
        throw validationError([
          {
            loc: ['body', 'pay_currency'],
            msg: `Unsupported pay currency ${body.pay_currency}; one of: ${coins.map((coin) => coin.currency).join(', ')}`,
            type: 'value_error',
          },
        ]);
      }
      return payments.preferences.put(customerOf(request).customerId, body);
    },
  );
}
