/**
 * The operator's view of many customers' money at once (the console's customer list): token and cash balances
 * and what each spent on billed calls over a recent window, in two queries whatever the page size.
 */
import type { Storage } from '../storage/database.js';

export interface CustomerMoney {
  balanceMicros: number;
  cashBalanceMicros: number;
  spentMicros: number;
}

export async function customerMoney(
  storage: Storage,
  customerIds: readonly number[],
  sinceMs: number,
): Promise<Map<number, CustomerMoney>> {
  const found = new Map<number, CustomerMoney>(customerIds.map((id) => [id, { balanceMicros: 0, cashBalanceMicros: 0, spentMicros: 0 }]));
  if (customerIds.length === 0) return found;
  const [accounts, spent] = await Promise.all([
    storage.db
      .selectFrom('billing_accounts')
      .select(['customer_id', 'kind', 'balance_micros'])
      .where('customer_id', 'in', [...customerIds])
      .where('kind', 'in', ['token_wallet', 'cash_wallet'])
      .execute(),
    storage.db
      .selectFrom('billing_calls')
      .select((eb) => ['customer_id', eb.fn.sum<string | number>('cost_micros').as('spent')])
      .where('customer_id', 'in', [...customerIds])
      .where('status', '=', 'settled')
      .where('created_at', '>=', sinceMs)
      .groupBy('customer_id')
      .execute(),
  ]);
  for (const row of accounts) {
    const money = found.get(Number(row.customer_id));
    if (!money) continue;
    if (row.kind === 'token_wallet') money.balanceMicros = Number(row.balance_micros);
    else money.cashBalanceMicros = Number(row.balance_micros);
  }
  for (const row of spent) {
    const money = found.get(Number(row.customer_id));
    if (money) money.spentMicros = Number(row.spent ?? 0);
  }
  return found;
}
