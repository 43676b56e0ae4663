/**
 * Operator money routes: the rate cards (`/api/admin/rate-cards*`), the ledger invariant check
 * (`/api/admin/billing/invariants`) and refunds of crypto orders to the customer's saved refund address.
 */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../../kernel/errors.js';
import type { BillingServices } from '../../../../billing/index.js';
import { paymentJson, type PaymentServices } from '../../../../billing/payments/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { Clock } from '../../../../kernel/clock.js';
import type { App } from '../../../types.js';

const operator = { auth: 'operator', surface: 'account' } as const;
const STRICT = { additionalProperties: false } as const;

export interface AdminBillingRouteDeps {
  billing: Pick<BillingServices, 'rateCards' | 'checkLedger'>;
  payments: Pick<PaymentServices, 'crypto'>;
  config: AppConfig;
  clock: Clock;
}

export async function adminBillingRoutes(app: App, deps: AdminBillingRouteDeps): Promise<void> {
  const { billing, config, clock } = deps;

  app.get(
    '/rate-cards',
    { config: operator, schema: { tags: ['admin'], summary: 'Rate cards and the card in force per model and alias' } },
    async () => {
      await billing.rateCards.refresh(true);
      return {
        cards: Object.entries(config.rateCards).map(([name]) => billing.rateCards.card(name)),
        active: billing.rateCards.list(),
      };
    },
  );

  app.put(
    '/rate-cards/active',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'Switch the rate card in force for a model or alias (new holds use it at once)',
        body: Type.Object({ target: Type.String({ minLength: 1 }), card: Type.String({ minLength: 1 }) }, STRICT),
      },
    },
    async (request) => {
      if (!(request.body.card in config.rateCards)) {
        throw new AppError('VALIDATION_FAILED', `Unknown rate card ${request.body.card}`, {
          issues: [{ loc: ['body', 'card'], msg: `Unknown rate card ${request.body.card}`, type: 'value_error' }],
        });
      }
      return billing.rateCards.switchCard(request.body.target, request.body.card);
    },
  );

  app.post(
    '/billing/crypto-orders/:order_id/refund',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary:
          'Refund a paid crypto order in full: the coin goes to the customer’s saved refund address on its network (none → 409), the credit is clawed back; once per order',
        params: Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request) => {
      const order = await deps.payments.crypto.refund(request.params.order_id);
      return { order_id: order.public_id, ...paymentJson(order), payouts: await deps.payments.crypto.payouts.list(order.id) };
    },
  );

  app.get(
    '/billing/invariants',
    {
      config: operator,
      schema: { tags: ['admin'], summary: 'Ledger invariants: balances equal entries, transfers balanced, holds consistent' },
    },
    async () => {
      const check = await billing.checkLedger();
      const ok = check.mismatchedAccounts.length === 0 && check.unbalancedTransfers.length === 0 && check.badHolds.length === 0;
      return { ok, ...check, checked_at: new Date(clock.nowMs()).toISOString() };
    },
  );
}
