/**
 * Money: credit packs paid by card (hosted checkout of the processor) or crypto, bonus codes, the purchases with
 * receipts, crypto refund addresses, auto top-up, the cash wallet and Unlimited Coding plans.
 */
import { useState } from 'preact/hooks';
import { call, client, idempotent, newIdempotencyKey, type Answer } from '../../shared/api';
import { dateTime, usd } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { Card, Check, Field, Notice, Outcome, SelectField } from '../../shared/ui';
import type { Me, Money, ViewProps } from './index';
import { estimateText, PurchasePreferencesForm, type CurrencyEstimates, type PurchasePreferences } from './purchase-preferences';

type CryptoOptions = Answer<'/api/v1/wallet/crypto/options'>;
type Pack = CryptoOptions['packs'][number];
type Payments = Answer<'/api/v1/wallet/payments'>;
type DiscountCheck = Answer<'/api/v1/wallet/topup-discount', 'post'>;

function TopUp(props: {
  options: CryptoOptions;
  cash: Money | undefined;
  card: boolean;
  preferences: PurchasePreferences;
  estimates: CurrencyEstimates | null;
}) {
  const { options, cash, card: cardOn, preferences, estimates } = props;
  const saved = (id: string | null, ids: string[]) => (id !== null && ids.includes(id) ? id : (ids[0] ?? ''));
  const [packId, setPackId] = useState(
    saved(
      preferences.default_pack_id,
      options.packs.map((one) => one.id),
    ),
  );
  const [wallet, setWallet] = useState<'token' | 'cash'>('token');
  const [code, setCode] = useState('');
  const [coin, setCoin] = useState(
    saved(
      preferences.pay_currency,
      options.coins.map((one) => one.currency),
    ),
  );
  const cryptoFirst = preferences.payment_method === 'crypto';
  const [checked, setChecked] = useState<DiscountCheck | null>(null);
  const action = useAction();
  const pack = options.packs.find((candidate) => candidate.id === packId);

  const card = () =>
    action.run(async () => {
      const body = { pack_id: packId, ...(code.trim() ? { discount_code: code.trim() } : {}) };
      const answer = await call(() =>
        wallet === 'cash'
          ? client.POST('/api/v1/cash-wallet/card/checkout', { body })
          : client.POST('/api/v1/wallet/card/checkout', { body }),
      );
      location.assign(answer.checkout_url);
      return 'Opening the secure card checkout…';
    });
  const crypto = () =>
    action.run(async () => {
      const body = { pack_id: packId, pay_currency: coin, ...(code.trim() ? { discount_code: code.trim() } : {}) };
      const order = await call(() =>
        wallet === 'cash'
          ? client.POST('/api/v1/cash-wallet/crypto/checkout', { body })
          : client.POST('/api/v1/wallet/crypto/checkout', { body }),
      );
      if (order.invoice_url) location.assign(order.invoice_url);
      return `Crypto order ${order.order_id} created.`;
    });
  const fromCash = () =>
    action.run(async () => {
      const key = newIdempotencyKey();
      await call(() => client.POST('/api/v1/cash-wallet/token-purchase', { body: { pack_id: packId }, headers: idempotent(key) }));
      return `Bought ${pack?.name ?? packId} from your cash wallet.`;
    });
  const validate = () =>
    action.run(async () => {
      const answer = await call(() => client.POST('/api/v1/wallet/topup-discount', { body: { code: code.trim() } }));
      setChecked(answer);
    });

  // The preferred payment method comes first and is the primary button.
  const cardActions = (
    <div class="actions">
      {cardOn ? (
        <button
          type="button"
          class={cryptoFirst || preferences.payment_method === 'cash' ? 'secondary' : undefined}
          disabled={!packId || action.busy}
          onClick={card}
        >
          Pay {pack ? usd(pack.price_micros) : ''} by card
        </button>
      ) : null}
      {wallet === 'token' && cash && pack && cash.micros >= pack.price_micros ? (
        <button
          type="button"
          class={preferences.payment_method === 'cash' ? undefined : 'secondary'}
          disabled={action.busy}
          onClick={fromCash}
        >
          Pay from cash wallet
        </button>
      ) : null}
    </div>
  );
  return (
    <>
      <Outcome outcome={action.outcome} />
      <fieldset>
        <legend>Credit pack</legend>
        {options.packs.map((candidate) => (
          <label key={candidate.id} class="radio">
            <input
              type="radio"
              name="pack"
              value={candidate.id}
              checked={candidate.id === packId}
              onChange={() => setPackId(candidate.id)}
            />{' '}
            {candidate.name} — pay {usd(candidate.price_micros)}
            {estimateText(estimates, candidate.price_micros)}, get {usd(candidate.credit_micros)}
          </label>
        ))}
      </fieldset>
      <SelectField
        label="Into which wallet"
        value={wallet}
        onValue={(value) => setWallet(value as 'token' | 'cash')}
        options={[
          { value: 'token', label: 'Token wallet (pays for calls)' },
          { value: 'cash', label: 'Cash wallet (buys packs and plans)' },
        ]}
      />
      <div class="row">
        <div class="grow">
          <Field label="Bonus code (optional)" value={code} onValue={(value) => (setCode(value), setChecked(null))} maxLength={64} />
        </div>
        <button type="button" class="secondary" disabled={!code.trim() || action.busy} onClick={validate}>
          Check code
        </button>
      </div>
      {checked ? (
        <Notice kind={checked.valid ? 'ok' : 'error'}>
          {checked.valid
            ? `Valid: ${checked.bonus_percent} % bonus credit${checked.expires_at ? ` until ${dateTime(checked.expires_at)}` : ''}.`
            : `Not valid: ${checked.reason ?? 'unknown code'}.`}
        </Notice>
      ) : null}
      {cryptoFirst ? null : cardActions}
      {options.enabled ? (
        <div class="row">
          <div class="grow">
            <SelectField
              label="Pay with crypto"
              value={coin}
              onValue={setCoin}
              options={options.coins.map((one) => ({ value: one.currency, label: `${one.name} (${one.network})` }))}
            />
          </div>
          <button type="button" class={cryptoFirst ? undefined : 'secondary'} disabled={!packId || action.busy} onClick={crypto}>
            Pay by crypto
          </button>
        </div>
      ) : null}
      {cryptoFirst ? cardActions : null}
    </>
  );
}

/** An operator contact as a link when it is an address or a URL, else as text. */
function Contact({ contact }: { contact: string }) {
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return <a href={`mailto:${contact}`}>{contact}</a>;
  if (/^https?:\/\//.test(contact)) return <a href={contact}>{contact}</a>;
  return <strong>{contact}</strong>;
}

/** Where no payment method is on, credit comes from the operator: say so, and how to reach them. */
function AskOperator({ me }: { me: Me }) {
  const contact = me.features.operator_contact;
  return (
    <Card title="How credit arrives">
      <p data-testid="ask-operator">
        This service does not take payments online: the operator adds credit to your wallet.{' '}
        {contact ? (
          <>
            Ask them at <Contact contact={contact} />.
          </>
        ) : (
          'Ask the operator who gave you access.'
        )}
      </p>
      <p class="muted">
        Tell them your account email, <strong>{me.customer.email}</strong> (customer {me.customer.id}). The credit shows here and on Home as
        soon as it is added.
      </p>
    </Card>
  );
}

function Purchases({ data, reload }: { data: Payments; reload: () => Promise<void> }) {
  const action = useAction();
  const refresh = (orderId: string) =>
    action.run(async () => {
      const answer = await call(() => client.POST('/api/v1/wallet/top-up', { body: { order_id: orderId } }));
      await reload();
      return answer.credited ? 'Paid and credited.' : `Status: ${answer.purchase.status}.`;
    });
  if (data.purchases.length === 0) return <p class="muted">No purchases yet.</p>;
  return (
    <>
      <Outcome outcome={action.outcome} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Method</th>
              <th scope="col">Wallet</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Paid
              </th>
              <th scope="col" class="num">
                Credit
              </th>
              <th scope="col">Receipt</th>
            </tr>
          </thead>
          <tbody>
            {data.purchases.map((purchase) => (
              <tr key={purchase.payment_id} data-testid="purchase">
                <td>{dateTime(purchase.created_at)}</td>
                <td>{purchase.method}</td>
                <td>{purchase.wallet}</td>
                <td>{purchase.status}</td>
                <td class="num">{usd(purchase.amount.micros)}</td>
                <td class="num">{usd(purchase.credit.micros)}</td>
                <td>
                  {purchase.method === 'crypto' && purchase.status === 'paid' ? (
                    <a href={`/api/v1/wallet/crypto/orders/${encodeURIComponent(purchase.payment_id)}/receipt.pdf`}>PDF</a>
                  ) : purchase.method === 'crypto' && purchase.status !== 'paid' ? (
                    <button type="button" class="secondary" onClick={() => refresh(purchase.payment_id)}>
                      Check status
                    </button>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function RefundAddresses({ options }: { options: CryptoOptions }) {
  const list = useLoad(() => call(() => client.GET('/api/v1/wallet/crypto/refund-addresses')));
  const networks = [...new Set(options.coins.map((coin) => coin.network))];
  const [network, setNetwork] = useState(networks[0] ?? '');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const action = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await call(() =>
        client.POST('/api/v1/wallet/crypto/refund-addresses', {
          body: { network, address: address.trim(), ...(label.trim() ? { label: label.trim() } : {}) },
        }),
      );
      setAddress('');
      setLabel('');
      await list.reload();
      return 'Address saved.';
    });
  };
  return (
    <>
      <Outcome outcome={action.outcome} />
      {list.data && list.data.addresses.length === 0 ? <p class="muted">No refund addresses saved.</p> : null}
      <ul class="plain-list">
        {list.data?.addresses.map((saved) => (
          <li key={saved.address_id}>
            <strong>{saved.label ?? saved.network}</strong> <span class="muted">{saved.network}</span>
            <br />
            <code class="wrap">{saved.address}</code>{' '}
            <button
              type="button"
              class="secondary"
              onClick={() =>
                action.run(
                  async () =>
                    void (
                      await call(() =>
                        client.DELETE('/api/v1/wallet/crypto/refund-addresses/{address_id}', {
                          params: { path: { address_id: saved.address_id } },
                        }),
                      ),
                      await list.reload()
                    ),
                )
              }
            >
              Delete<span class="visually-hidden"> {saved.address}</span>
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={add} aria-label="Add a refund address">
        <SelectField label="Network" value={network} onValue={setNetwork} options={networks.map((value) => ({ value, label: value }))} />
        <Field label="Address" value={address} onValue={setAddress} required maxLength={200} />
        <Field label="Label (optional)" value={label} onValue={setLabel} maxLength={100} />
        <button type="submit" disabled={action.busy}>
          Save address
        </button>
      </form>
    </>
  );
}

function AutoTopUpForm({ packs }: { packs: Pack[] }) {
  const current = useLoad(() => call(() => client.GET('/api/v1/wallet/auto-topup')));
  const action = useAction();
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [threshold, setThreshold] = useState<string | null>(null);
  const [packId, setPackId] = useState<string | null>(null);
  if (!current.data) return current.error ? <Notice kind="error">{current.error}</Notice> : <p aria-busy="true">Loading…</p>;
  const data = current.data;
  const on = enabled ?? data.enabled;
  const limit = threshold ?? String(data.threshold.micros / 1_000_000);
  const pack = packId ?? data.pack_id ?? packs[0]?.id ?? '';
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await call(() =>
        client.POST('/api/v1/wallet/auto-topup', {
          body: { enabled: on, threshold_micros: Math.round(Number(limit) * 1_000_000), pack_id: pack },
        }),
      );
      await current.reload();
      return 'Auto top-up saved.';
    });
  };
  return (
    <form onSubmit={save} aria-label="Auto top-up">
      <Outcome outcome={action.outcome} />
      <p class="muted">
        {data.saved_card ? 'A card is saved for off-session charges.' : 'Auto top-up needs a saved card: pay once by card first.'}
        {data.charge_pending ? ' A charge is in progress.' : ''}
      </p>
      <Check label="Top up automatically" checked={on} onChecked={setEnabled} />
      <Field label="When available credit falls below (USD)" value={limit} onValue={setThreshold} inputMode="decimal" />
      <SelectField
        label="Buy this pack"
        value={pack}
        onValue={setPackId}
        options={packs.map((one) => ({ value: one.id, label: `${one.name} (${usd(one.price_micros)})` }))}
      />
      <button type="submit" disabled={action.busy}>
        Save auto top-up
      </button>
    </form>
  );
}

function Plans({ cash }: { cash: Money | undefined }) {
  const plans = useLoad(() => call(() => client.GET('/api/v1/unlimited-coding/plans')));
  const action = useAction();
  if (!plans.data) return plans.error ? <Notice kind="error">{plans.error}</Notice> : null;
  if (plans.data.plans.length === 0) return <p class="muted">No Unlimited plans are offered at the moment.</p>;
  return (
    <>
      <Outcome outcome={action.outcome} />
      <ul class="plain-list">
        {plans.data.plans.map((plan) => (
          <li key={plan.id}>
            <strong>{plan.name}</strong> — {usd(plan.price.micros)} for {plan.duration_days} days
            {plan.models ? ` (${plan.models.join(', ')})` : ''}
            {plan.description ? <div class="muted">{plan.description}</div> : null}
            {plan.active ? (
              <span class="badge">active</span>
            ) : (
              <button
                type="button"
                class="secondary"
                disabled={action.busy || (cash?.micros ?? 0) < plan.price.micros}
                onClick={() =>
                  action.run(async () => {
                    const key = newIdempotencyKey();
                    await call(() =>
                      client.POST('/api/v1/cash-wallet/unlimited-purchase', { body: { plan_id: plan.id }, headers: idempotent(key) }),
                    );
                    await plans.reload();
                    return `${plan.name} is active.`;
                  })
                }
              >
                Buy with cash wallet<span class="visually-hidden"> {plan.name}</span>
              </button>
            )}
          </li>
        ))}
      </ul>
      <p class="muted">Plans are bought from the cash wallet ({usd(cash?.micros ?? 0)} available).</p>
    </>
  );
}

export function MoneyView({ me }: ViewProps) {
  const features = me.features;
  const payments = features.card_payments || features.crypto_payments;
  const wallet = useLoad(() => call(() => client.GET('/api/v1/wallet/status')));
  const options = useLoad(() => call(() => client.GET('/api/v1/wallet/crypto/options')));
  const history = useLoad(() => call(() => client.GET('/api/v1/wallet/payments', { params: { query: { limit: 50 } } })));
  const preferences = useLoad(() => call(() => client.GET('/api/v1/purchase-preferences')));
  const estimates = useLoad(() => call(() => client.GET('/api/v1/billing/currency-estimates')));
  const reloadPreferences = async () => {
    await Promise.all([preferences.reload(), estimates.reload()]);
  };
  const action = useAction();
  const personal = () =>
    action.run(async () => {
      const answer = await call(() => client.POST('/api/v1/wallet/topupemail-session-discount', { body: {} }));
      return `A ${answer.bonus_percent} % bonus code was mailed to ${answer.mailed_to}; valid until ${dateTime(answer.expires_at)}.`;
    });
  const cashShown = payments || features.unlimited_plans || features.promotions.referral || (wallet.data?.cash_balance.micros ?? 0) !== 0;
  const purchasesShown = payments || (history.data?.purchases.length ?? 0) > 0;
  return (
    <>
      <h1>Money</h1>
      <div class="grid">
        <Card title="Token wallet">
          <p class="stat" data-testid="money-balance">
            {usd(wallet.data?.balance.micros)}
          </p>
          <p class="muted">
            Available {usd(wallet.data?.available.micros)}
            {estimateText(estimates.data, wallet.data?.available.micros ?? 0)} · held {usd(wallet.data?.holds.micros)}
          </p>
          <p class="muted">
            What it was spent on: <a href="#/activity">Activity</a>.
          </p>
        </Card>
        {cashShown ? (
          <Card title="Cash wallet">
            <p class="stat">{usd(wallet.data?.cash_balance.micros)}</p>
            <p class="muted">Referral earnings and cash top-ups; buys packs and plans.</p>
          </Card>
        ) : null}
      </div>
      {payments ? (
        <Card title="Add credit">
          {options.error ? <Notice kind="error">{options.error}</Notice> : null}
          {options.data && preferences.data ? (
            <TopUp
              key={JSON.stringify(preferences.data)}
              options={options.data}
              cash={wallet.data?.cash_balance}
              card={features.card_payments}
              preferences={preferences.data}
              estimates={estimates.data}
            />
          ) : null}
          <Outcome outcome={action.outcome} />
          {features.bonus_code_mail ? (
            <button type="button" class="secondary" disabled={action.busy} onClick={personal}>
              Email me a personal bonus code
            </button>
          ) : null}
        </Card>
      ) : (
        <AskOperator me={me} />
      )}
      {payments && options.data && preferences.data ? (
        <Card title="Purchase preferences">
          <PurchasePreferencesForm
            preferences={preferences.data}
            packs={options.data.packs}
            coins={options.data.coins}
            currencies={(estimates.data?.estimates ?? []).map((one) => one.currency)}
            onSaved={reloadPreferences}
          />
        </Card>
      ) : null}
      {purchasesShown ? (
        <Card title="Purchases and receipts">
          {history.error ? <Notice kind="error">{history.error}</Notice> : null}
          {history.data ? <Purchases data={history.data} reload={history.reload} /> : null}
        </Card>
      ) : null}
      <div class="grid">
        {features.auto_top_up ? (
          <Card title="Auto top-up">{options.data ? <AutoTopUpForm packs={options.data.packs} /> : null}</Card>
        ) : null}
        {features.unlimited_plans ? (
          <Card title="Unlimited plans">
            <Plans cash={wallet.data?.cash_balance} />
          </Card>
        ) : null}
      </div>
      {features.crypto_payments ? (
        <Card title="Crypto refund addresses">{options.data ? <RefundAddresses options={options.data} /> : null}</Card>
      ) : null}
    </>
  );
}
