/**
 * Wallet auto top-up: read and save the customer's setting (threshold, pack, on/off). Turning it on needs a
 * card saved by a paid card checkout (409 otherwise); the charges themselves follow settlements.
 */
import { Type } from '@sinclair/typebox';
import type { AutoTopupSetting } from '../../../../../billing/payments/auto-topup.js';
import { moneyJson } from '../../../../../kernel/money.js';
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';
import { customerOf } from '../../../../caller.js';

const walletOwner = { auth: 'api', surface: 'account', caller: 'wallet-owner' } as const;

const AutoTopupBody = Type.Object(
  {
    enabled: Type.Boolean(),
    /** Available token-wallet balance (micro-USD) below which one charge buys the pack. */
    threshold_micros: Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 }),
    pack_id: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
);

function settingJson(setting: AutoTopupSetting) {
  return {
    enabled: setting.enabled,
    threshold: moneyJson(setting.threshold_micros),
    pack_id: setting.pack_id,
    armed: setting.armed,
    charge_pending: setting.pending,
    saved_card: setting.saved_card,
  };
}

export interface WalletAutoTopupRouteDeps {
  payments: Pick<PaymentServices, 'autoTopup'>;
}

export async function walletAutoTopupRoutes(app: App, deps: WalletAutoTopupRouteDeps): Promise<void> {
  const { autoTopup } = deps.payments;

  app.get(
    '/auto-topup',
    { config: walletOwner, schema: { tags: ['wallet'], summary: 'Auto top-up setting of the token wallet' } },
    async (request) => settingJson(await autoTopup.get(customerOf(request).customerId)),
  );

  app.post(
    '/auto-topup',
    {
      config: walletOwner,
      schema: {
        tags: ['wallet'],
        summary:
          'Configure auto top-up: when a settlement leaves the available balance below the threshold, one off-session charge of the saved card buys the pack (409 without a saved card)',
        body: AutoTopupBody,
      },
    },
    async (request) => {
      const customer = customerOf(request);
      const { enabled, threshold_micros, pack_id } = request.body;
      return settingJson(await autoTopup.put(customer.customerId, { enabled, thresholdMicros: threshold_micros, packId: pack_id }));
    },
  );
}
