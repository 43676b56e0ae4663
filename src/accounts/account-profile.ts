/**
 * What `GET /api/v1/me`, registration and login tell a customer: the account, its wallet and the CLI
 * configuration (base URLs of the model-API gateway and the service API — those of the customer's chosen edge
 * region when one is chosen — and the default model).
 */
import type { AppConfig } from '../config/load-config.js';
import { moneyJson } from '../kernel/money.js';
import type { ApiKeyKind } from '../storage/tables/chassis.js';
import type { CreatedCustomer, CustomerService } from './customer-service.js';
import { kindLabel } from './key-policy.js';

export interface WalletSource {
  walletSummary(customerId: number): Promise<{ balanceMicros: number; holdsMicros: number; availableMicros: number; plan: string | null }>;
}

/** The base URLs clients call: the customer's chosen edge region when there is one, else this service. */
export function cliConfiguration(config: AppConfig, edgeBaseUrl: string | null = null) {
  const base = (edgeBaseUrl ?? config.publicBaseUrl).replace(/\/+$/, '');
  return {
    base_url: `${base}/v1`,
    api_base_url: `${base}/api/v1`,
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

/** The API base URL of the customer's chosen edge region (null: none chosen, or no longer configured). */
export type EdgeBase = (customerId: number) => Promise<string | null>;

export async function describeAccount(
  deps: { customers: CustomerService; wallets: WalletSource; config: AppConfig; prices: PriceList; edgeBase?: EdgeBase },
  caller: { customerId: number; keyId: number; keyKind: ApiKeyKind },
) {
  const [customer, wallet, edgeBaseUrl] = await Promise.all([
    deps.customers.get(caller.customerId),
    deps.wallets.walletSummary(caller.customerId),
    deps.edgeBase ? deps.edgeBase(caller.customerId) : null,
  ]);
  return {
    customer: { ...customerView(customer), vip: customer.vip === 1 },
    key: { id: caller.keyId, kind: kindLabel(caller.keyKind) },
    wallet: {
      ...moneyJson(wallet.balanceMicros),
      available: moneyJson(wallet.availableMicros),
      held: moneyJson(wallet.holdsMicros),
      plan: wallet.plan,
    },
    ...cliConfiguration(deps.config, edgeBaseUrl),
    prices: deps.prices().map((entry) => ({ model: entry.id, ...entry.pricing })),
  };
}
