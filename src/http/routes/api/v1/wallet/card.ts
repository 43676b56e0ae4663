/** Card payments of the token wallet: `/api/v1/wallet/card/checkout` and `/api/v1/wallet/card/confirm`. */
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';
import { cardCheckoutRoutes } from '../../../shared/card-checkout.js';

export interface WalletCardRouteDeps {
  payments: Pick<PaymentServices, 'card' | 'preferences'>;
}

export async function walletCardRoutes(app: App, deps: WalletCardRouteDeps): Promise<void> {
  cardCheckoutRoutes(app, deps, 'token');
}
