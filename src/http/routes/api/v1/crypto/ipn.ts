/** The crypto processor's signed payment callbacks, `/api/v1/crypto/ipn` (public). */
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';

export interface CryptoIpnRouteDeps {
  payments: Pick<PaymentServices, 'crypto'>;
}

export async function cryptoIpnRoutes(app: App, deps: CryptoIpnRouteDeps): Promise<void> {
  app.post(
    '/ipn',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary: 'Crypto-processor payment callbacks (header x-nowpayments-sig: HMAC-SHA512 of the key-sorted JSON body)',
      },
    },
    async (request) => {
      const result = await deps.payments.crypto.ipn(request.body, request.headers['x-nowpayments-sig']);
      return { received: true, duplicate: result.duplicate };
    },
  );
}
