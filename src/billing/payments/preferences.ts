/** What a customer prefers at checkout, and the pack a new account came for becoming its default. */
import type { Kysely } from 'kysely';
import type { CreditPackConfig } from '../../config/sections/payments.js';
import type { Database } from '../../storage/schema.js';
import type { Clock } from '../../kernel/clock.js';

/** What a customer prefers at checkout; estimates may use another display currency, checkout stays USD. */
export interface PurchasePreferences {
  default_pack_id: string | null;
  payment_method: 'card' | 'crypto' | 'cash' | null;
  pay_currency: string | null;
  display_currency: string;
}

const DEFAULT_PREFERENCES: PurchasePreferences = {
  default_pack_id: null,
  payment_method: null,
  pay_currency: null,
  display_currency: 'USD',
};

/**
 * The pack a new account came for: `planId` naming a pack, else the smallest pack priced at least `amountMicros`
 * (the largest when none is); null when neither was given or no pack is configured.
 */
export function packForSignup(
  packs: readonly { id: string; priceMicros: number }[],
  planId: string | undefined,
  amountMicros: number | undefined,
): string | null {
  const named = planId === undefined ? undefined : packs.find((pack) => pack.id === planId);
  if (named) return named.id;
  if (amountMicros === undefined || amountMicros <= 0 || packs.length === 0) return null;
  const byPrice = [...packs].sort((a, b) => a.priceMicros - b.priceMicros);
  return (byPrice.find((pack) => pack.priceMicros >= amountMicros) ?? byPrice[byPrice.length - 1]!).id;
}

export class PurchasePreferenceStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly packs: readonly CreditPackConfig[],
  ) {}

  async get(customerId: number): Promise<PurchasePreferences> {
    const row = await this.db
      .selectFrom('purchase_preferences')
      .select('preferences_json')
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    return { ...DEFAULT_PREFERENCES, ...(row ? (JSON.parse(row.preferences_json) as Partial<PurchasePreferences>) : {}) };
  }

  async put(customerId: number, preferences: PurchasePreferences): Promise<PurchasePreferences> {
    const json = JSON.stringify(preferences);
    const nowMs = this.clock.nowMs();
    await this.db
      .insertInto('purchase_preferences')
      .values({ customer_id: customerId, preferences_json: json, updated_at: nowMs })
      .onConflict((conflict) => conflict.column('customer_id').doUpdateSet({ preferences_json: json, updated_at: nowMs }))
      .execute();
    return { ...DEFAULT_PREFERENCES, ...preferences };
  }

  /** A new account's plan or amount (identity-provider sign-up) becomes the default pack of its first checkout. */
  async adoptSignupPack(customerId: number, signup: { planId?: string; amountUsdMicros?: number }): Promise<void> {
    const packId = packForSignup(this.packs, signup.planId, signup.amountUsdMicros);
    if (packId !== null) await this.put(customerId, { ...(await this.get(customerId)), default_pack_id: packId });
  }
}
