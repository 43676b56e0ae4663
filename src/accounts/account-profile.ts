/**
 * What `GET /api/v1/me`, registration and login tell a customer: the account, its wallet and the CLI
 * configuration (base URLs of the model-API gateway and the service API, and the default model).
 */
import type { AppConfig } from '../config/load-config.js';
import { moneyJson } from '../kernel/money.js';
import type { ApiKeyKind } from '../storage/tables/chassis.js';
import type { CreatedCustomer, CustomerService } from './customer-service.js';
import { kindLabel } from './key-policy.js';

export interface WalletSource {
  walletSummary(customerId: number): Promise<{ balanceMicros: number; holdsMicros: number; availableMicros: number; plan: string | null }>;
}

export function cliConfiguration(config: AppConfig) {
  return {
    base_url: `${config.publicBaseUrl}/v1`,
    api_base_url: `${config.publicBaseUrl}/api/v1`,
    default_model: config.agent.defaultModel,
  };
}

export function customerView(customer: { id: number; email: string; username: string; name: string | null; created_at: number }) {
  return {
    id: customer.id,
    email: customer.email,
    username: customer.username,
    name: customer.name,
    created_at: new Date(customer.created_at).toISOString(),
  };
}

/** The one-time answer to a new account: both secrets are shown here and never again. */
export function createdCustomerView(created: CreatedCustomer, config: AppConfig) {
  return {
    customer: customerView({ ...created.customer, created_at: created.customer.createdAt }),
    api_key: created.systemToken.key,
    api_key_id: created.systemToken.id,
    username_token: created.usernameToken.key,
    username_token_id: created.usernameToken.id,
    ...cliConfiguration(config),
  };
}

/** Current prices of the models and aliases a customer can call (billing's cards, runtime switches included). */
export type PriceList = () => { id: string; pricing: object | null }[];

export async function describeAccount(
  deps: { customers: CustomerService; wallets: WalletSource; config: AppConfig; prices: PriceList },
  caller: { customerId: number; keyId: number; keyKind: ApiKeyKind },
) {
  const [customer, wallet] = await Promise.all([deps.customers.get(caller.customerId), deps.wallets.walletSummary(caller.customerId)]);
  return {
    customer: { ...customerView(customer), vip: customer.vip === 1 },
    key: { id: caller.keyId, kind: kindLabel(caller.keyKind) },
    wallet: {
      ...moneyJson(wallet.balanceMicros),
      available: moneyJson(wallet.availableMicros),
      held: moneyJson(wallet.holdsMicros),
      plan: wallet.plan,
    },
    ...cliConfiguration(deps.config),
    prices: deps.prices().map((entry) => ({ model: entry.id, ...entry.pricing })),
  };
}
