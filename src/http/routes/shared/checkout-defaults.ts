/**
 * What a checkout uses when the body leaves it out: the customer's purchase preferences (default pack, pay
 * currency). Neither given nor saved → 422 naming the field.
 */
import { validationError } from '../../../kernel/errors.js';
import type { PaymentServices } from '../../../billing/payments/index.js';

type Preferences = Pick<PaymentServices, 'preferences'>['preferences'];

export async function checkoutChoices(
  preferences: Preferences,
  customerId: number,
  given: { pack_id?: string; pay_currency?: string },
  needs: { payCurrency: boolean },
): Promise<{ packId: string; payCurrency: string | null }> {
  const saved =
    given.pack_id !== undefined && (given.pay_currency !== undefined || !needs.payCurrency) ? null : await preferences.get(customerId);
  const packId = given.pack_id ?? saved?.default_pack_id ?? null;
  if (packId === null) {
    throw validationError([
      { loc: ['body', 'pack_id'], msg: 'Choose a pack (or save a default pack in your purchase preferences)', type: 'missing' },
    ]);
  }
  const payCurrency = needs.payCurrency ? (given.pay_currency ?? saved?.pay_currency ?? null) : null;
  if (needs.payCurrency && payCurrency === null) {
    throw validationError([
      { loc: ['body', 'pay_currency'], msg: 'Choose a pay currency (or save one in your purchase preferences)', type: 'missing' },
    ]);
  }
  return { packId, payCurrency };
}
