/**
 * Money: credit packs paid by card (hosted checkout of the processor) or crypto, bonus codes, the purchases with
 * receipts, crypto refund addresses, auto top-up, the cash wallet and Unlimited Coding plans.
 */
import { useState } from 'preact/hooks';
import { api, newIdempotencyKey, query } from '../../shared/api';
import { dateTime, usd } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { Card, Check, Field, Notice, Outcome, SelectField } from '../../shared/ui';
import type { Money, ViewProps } from './index';
import type { Pack, Payments, WalletStatus } from './types';

interface CryptoOptions {
  enabled: boolean;
  coins: { currency: string; name: string; network: string }[];
  packs: Pack[];
  max_refund_addresses: number;
}
interface RefundAddress {
  id: number | string;
  network: string;
  address: string;
  label: string | null;
}
interface AutoTopUp {
  enabled: boolean;
  threshold: Money;
  pack_id: string | null;
  armed: boolean;
  charge_pending: boolean;
  saved_card: boolean;
}
interface Plan {
  id: string;
  name: string;
  description: string | null;
  price: Money;
  duration_days: number;
  models: string[] | null;
  active: boolean;
}
interface DiscountCheck {
  valid: boolean;
  reason?: string;
  bonus_percent?: number;
  expires_at?: string | null;
}

function TopUp({ options, cash }: { options: CryptoOptions; cash: Money | undefined }) {
  const [packId, setPackId] = useState(options.packs[0]?.id ?? '');
  const [wallet, setWallet] = useState<'token' | 'cash'>('token');
  const [code, setCode] = useState('');
  const [coin, setCoin] = useState(options.coins[0]?.currency ?? '');
  const [checked, setChecked] = useState<DiscountCheck | null>(null);
  const action = useAction();
  const prefix = wallet === 'cash' ? '/api/v1/cash-wallet' : '/api/v1/wallet';
  const pack = options.packs.find((candidate) => candidate.id === packId);

  const card = () =>
    action.run(async () => {
      const answer = await api.post<{ checkout_url: string }>(`${prefix}/card/checkout`, {
        pack_id: packId,
        ...(code.trim() ? { discount_code: code.trim() } : {}),
      });
      location.assign(answer.checkout_url);
      return 'Opening the secure card checkout…';
    });
  const crypto = () =>
    action.run(async () => {
      const order = await api.post<{ invoice_url: string | null; order_id: string }>(`${prefix}/crypto/checkout`, {
        pack_id: packId,
        pay_currency: coin,
      });
      if (order.invoice_url) location.assign(order.invoice_url);
      return `Crypto order ${order.order_id} created.`;
    });
  const fromCash = () =>
    action.run(async () => {
      await api.post('/api/v1/cash-wallet/token-purchase', { pack_id: packId }, { idempotencyKey: newIdempotencyKey() });
      return `Bought ${pack?.name ?? packId} from your cash wallet.`;
    });
  const validate = () =>
    action.run(async () => {
      const answer = await api.post<DiscountCheck>('/api/v1/wallet/topup-discount', { code: code.trim() });
      setChecked(answer);
    });

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
            {candidate.name} — pay {usd(candidate.price_micros)}, get {usd(candidate.credit_micros)}
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
      <div class="actions">
        <button type="button" disabled={!packId || action.busy} onClick={card}>
          Pay {pack ? usd(pack.price_micros) : ''} by card
        </button>
        {wallet === 'token' && cash && pack && cash.micros >= pack.price_micros ? (
          <button type="button" class="secondary" disabled={action.busy} onClick={fromCash}>
            Pay from cash wallet
          </button>
        ) : null}
      </div>
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
          <button type="button" class="secondary" disabled={!packId || action.busy} onClick={crypto}>
            Pay by crypto
          </button>
        </div>
      ) : (
        <p class="muted">Crypto payments are not offered at the moment.</p>
      )}
    </>
  );
}

function Purchases({ data, reload }: { data: Payments; reload: () => Promise<void> }) {
  const action = useAction();
  const refresh = (orderId: string) =>
    action.run(async () => {
      const answer = await api.post<{ credited: boolean; purchase: { status: string } }>('/api/v1/wallet/top-up', { order_id: orderId });
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
  const list = useLoad(() => api.get<{ addresses: RefundAddress[]; max: number }>('/api/v1/wallet/crypto/refund-addresses'));
  const networks = [...new Set(options.coins.map((coin) => coin.network))];
  const [network, setNetwork] = useState(networks[0] ?? '');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  const action = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api.post('/api/v1/wallet/crypto/refund-addresses', {
        network,
        address: address.trim(),
        ...(label.trim() ? { label: label.trim() } : {}),
      });
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
          <li key={saved.id}>
            <strong>{saved.label ?? saved.network}</strong> <span class="muted">{saved.network}</span>
            <br />
            <code class="wrap">{saved.address}</code>{' '}
            <button
              type="button"
              class="secondary"
              onClick={() =>
                action.run(async () => void (await api.delete(`/api/v1/wallet/crypto/refund-addresses/${saved.id}`), await list.reload()))
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
  const current = useLoad(() => api.get<AutoTopUp>('/api/v1/wallet/auto-topup'));
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
      await api.post('/api/v1/wallet/auto-topup', { enabled: on, threshold_micros: Math.round(Number(limit) * 1_000_000), pack_id: pack });
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
  const plans = useLoad(() =>
    api.get<{ plans: Plan[]; active: { plan_id?: string; ends_at?: string } | null }>('/api/v1/unlimited-coding/plans'),
  );
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
                    await api.post('/api/v1/cash-wallet/unlimited-purchase', { plan_id: plan.id }, { idempotencyKey: newIdempotencyKey() });
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

export function MoneyView(_props: ViewProps) {
  const wallet = useLoad(() => api.get<WalletStatus>('/api/v1/wallet/status'));
  const options = useLoad(() => api.get<CryptoOptions>('/api/v1/wallet/crypto/options'));
  const payments = useLoad(() => api.get<Payments>(`/api/v1/wallet/payments${query({ limit: 50 })}`));
  const action = useAction();
  const personal = () =>
    action.run(async () => {
      const answer = await api.post<{ mailed_to: string; bonus_percent: number; expires_at: string }>(
        '/api/v1/wallet/topupemail-session-discount',
        {},
      );
      return `A ${answer.bonus_percent} % bonus code was mailed to ${answer.mailed_to}; valid until ${dateTime(answer.expires_at)}.`;
    });
  return (
    <>
      <h1>Money</h1>
      <div class="grid">
        <Card title="Token wallet">
          <p class="stat" data-testid="money-balance">
            {usd(wallet.data?.balance.micros)}
          </p>
          <p class="muted">
            Available {usd(wallet.data?.available.micros)} · held {usd(wallet.data?.holds.micros)}
          </p>
        </Card>
        <Card title="Cash wallet">
          <p class="stat">{usd(wallet.data?.cash_balance.micros)}</p>
          <p class="muted">Referral earnings and cash top-ups; buys packs and plans.</p>
        </Card>
      </div>
      <Card title="Add credit">
        {options.error ? <Notice kind="error">{options.error}</Notice> : null}
        {options.data ? <TopUp options={options.data} cash={wallet.data?.cash_balance} /> : null}
        <Outcome outcome={action.outcome} />
        <button type="button" class="secondary" disabled={action.busy} onClick={personal}>
          Email me a personal bonus code
        </button>
      </Card>
      <Card title="Purchases and receipts">
        {payments.error ? <Notice kind="error">{payments.error}</Notice> : null}
        {payments.data ? <Purchases data={payments.data} reload={payments.reload} /> : null}
      </Card>
      <div class="grid">
        <Card title="Auto top-up">{options.data ? <AutoTopUpForm packs={options.data.packs} /> : null}</Card>
        <Card title="Unlimited plans">
          <Plans cash={wallet.data?.cash_balance} />
        </Card>
      </div>
      <Card title="Crypto refund addresses">{options.data ? <RefundAddresses options={options.data} /> : null}</Card>
    </>
  );
}
