/**
 * Purchase preferences on the Money view: the default pack and coin a checkout starts with, the payment method
 * offered first, and the display currency of the estimates shown next to USD prices (checkout stays USD).
 */
import { useState } from 'preact/hooks';
import { call, client, type Answer } from '../../shared/api';
import { useAction } from '../../shared/hooks';
import { Outcome, SelectField } from '../../shared/ui';

export type PurchasePreferences = Answer<'/api/v1/purchase-preferences'>;
export type CurrencyEstimates = Answer<'/api/v1/billing/currency-estimates'>;
type Pack = Answer<'/api/v1/wallet/crypto/options'>['packs'][number];
/** The select offers only these (and "no preference"). */
type PaymentMethod = PurchasePreferences['payment_method'];

/** "≈ 23.00 EUR" for a USD amount in the display currency; nothing when the display currency is USD. */
export function estimateText(estimates: CurrencyEstimates | null, micros: number): string {
  if (!estimates || estimates.display.currency === 'USD') return '';
  return ` (≈ ${((micros / 1_000_000) * estimates.display.per_usd).toFixed(2)} ${estimates.display.currency})`;
}

export function PurchasePreferencesForm(props: {
  preferences: PurchasePreferences;
  packs: Pack[];
  coins: { currency: string; name: string }[];
  currencies: string[];
  onSaved: () => Promise<void>;
}) {
  const [pack, setPack] = useState(props.preferences.default_pack_id ?? '');
  const [method, setMethod] = useState<string>(props.preferences.payment_method ?? '');
  const [coin, setCoin] = useState(props.preferences.pay_currency ?? '');
  const [display, setDisplay] = useState(props.preferences.display_currency);
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await call(() =>
        client.PUT('/api/v1/purchase-preferences', {
          body: {
            default_pack_id: pack || null,
            payment_method: (method || null) as PaymentMethod,
            pay_currency: coin || null,
            display_currency: display,
          },
        }),
      );
      await props.onSaved();
      return 'Purchase preferences saved.';
    });
  };
  return (
    <form onSubmit={save} aria-label="Purchase preferences">
      <Outcome outcome={action.outcome} />
      <SelectField
        label="Default pack"
        value={pack}
        onValue={setPack}
        options={[{ value: '', label: 'None' }, ...props.packs.map((one) => ({ value: one.id, label: one.name }))]}
      />
      <SelectField
        label="Preferred payment method"
        value={method}
        onValue={setMethod}
        options={[
          { value: '', label: 'No preference' },
          { value: 'card', label: 'Card' },
          { value: 'crypto', label: 'Crypto' },
          { value: 'cash', label: 'Cash wallet' },
        ]}
      />
      <SelectField
        label="Default coin"
        value={coin}
        onValue={setCoin}
        options={[{ value: '', label: 'None' }, ...props.coins.map((one) => ({ value: one.currency, label: one.name }))]}
      />
      <SelectField
        label="Show estimates in"
        value={display}
        onValue={setDisplay}
        hint="Estimates only: checkout and billing stay in USD."
        options={['USD', ...props.currencies.filter((one) => one !== 'USD')].map((one) => ({ value: one, label: one }))}
      />
      <button type="submit" disabled={action.busy}>
        Save purchase preferences
      </button>
    </form>
  );
}
