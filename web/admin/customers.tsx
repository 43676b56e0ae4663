/** Customers: the list, one customer's wallets and keys, adjustments, Unlimited grants and managed keys. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, newIdempotencyKey, query } from '../shared/api';
import { dateTime, usd } from '../shared/format';
import { Card, Field, Notice } from '../shared/ui';
import { admin, microsFromUsd } from './admin-api';
import { CustomerActivity } from './customer-activity';
import { LinkNotice, type SentLink } from './mail';

interface Money {
  micros: number;
}
interface CustomerRow {
  id: number;
  email: string;
  username: string;
  name: string | null;
  status: string;
  vip: boolean;
  created_at: string;
  balance?: Money;
  spent_30d?: Money;
}
interface KeyRow {
  id: number;
  kind: string;
  role: string;
  name: string | null;
  prefix: string;
  last_four: string;
  expires_at: string | null;
  last_used_at: string | null;
}
interface Detail {
  customer: CustomerRow;
  status: string;
  vip: boolean;
  wallet: { balance: Money; holds: Money; available: Money; cash_balance: Money; plan: string | null; plan_ends_at: string | null };
  keys: KeyRow[];
  signup: {
    plan_id: string | null;
    amount_usd_micros: number | null;
    source: string | null;
    country_code: string | null;
    country_name: string | null;
    device_fingerprint: string | null;
    mobile_number: string | null;
  } | null;
}

function message(caught: unknown): string {
  return caught instanceof Error ? caught.message : String(caught);
}

function CustomerDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [wallet, setWallet] = useState<'token' | 'cash'>('token');
  // One key per intended adjustment: a retry after a network failure is applied once.
  const [adjustKey, setAdjustKey] = useState(newIdempotencyKey);
  const [plan, setPlan] = useState('');
  const [tab, setTab] = useState<'overview' | 'activity'>('overview');
  const [days, setDays] = useState('');
  const [keyName, setKeyName] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const [passwordLink, setPasswordLink] = useState<SentLink | null>(null);

  const load = async () => {
    try {
      setDetail(await admin.get<Detail>(`/api/admin/customers/${id}`));
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps -- reloads when the customer changes; load reads the latest state
  useEffect(() => void load(), [id]);

  const adjust = async (event: Event) => {
    event.preventDefault();
    const micros = microsFromUsd(amount);
    if (micros === null || micros === 0) {
      setStatus({ kind: 'error', text: 'Enter a non-zero amount in US dollars, e.g. 5 or -1.25.' });
      return;
    }
    try {
      const result = await admin.post<{ balance: Money }>(
        `/api/admin/customers/${id}/wallet/adjust`,
        { amount_micros: micros, reason, wallet },
        { idempotencyKey: adjustKey },
      );
      setStatus({ kind: 'ok', text: `Adjusted by ${usd(micros)}; ${wallet} balance now ${usd(result.balance.micros)}.` });
      setAmount('');
      setReason('');
      setAdjustKey(newIdempotencyKey());
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };

  const grant = async (event: Event) => {
    event.preventDefault();
    try {
      const body: Record<string, unknown> = { plan };
      if (days.trim()) body.days = Number(days);
      const granted = await admin.put<{ plan: string; ends_at: string }>(`/api/admin/customers/${id}/unlimited-plan`, body);
      setStatus({ kind: 'ok', text: `Granted ${granted.plan} until ${dateTime(granted.ends_at)}.` });
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };

  const issueKey = async (event: Event) => {
    event.preventDefault();
    try {
      const created = await admin.post<{ key: string }>(
        '/api/admin/keys',
        keyName.trim() ? { customer_id: id, name: keyName.trim() } : { customer_id: id },
      );
      setIssued(created.key);
      setKeyName('');
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };

  const sendPasswordLink = async () => {
    try {
      setPasswordLink(await admin.post<SentLink>(`/api/admin/customers/${id}/password-link`));
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };

  const revoke = async (key: KeyRow) => {
    if (!confirm(`Revoke key ${key.prefix}…${key.last_four}?`)) return;
    try {
      await admin.delete(`/api/admin/keys/${key.id}`);
      setStatus({ kind: 'ok', text: `Revoked key ${key.id}.` });
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: message(caught) });
    }
  };

  if (!detail)
    return <Card title={`Customer ${id}`}>{status ? <Notice kind="error">{status.text}</Notice> : <p aria-busy="true">Loading…</p>}</Card>;
  const w = detail.wallet;
  return (
    <section class="card" aria-labelledby="customer-title">
      <h2 id="customer-title">
        {detail.customer.email} <span class="badge">#{detail.customer.id}</span> {detail.vip ? <span class="badge">VIP</span> : null}{' '}
        <span class="badge">{detail.status}</span>
      </h2>
      <p>
        <button type="button" class="secondary" onClick={onClose}>
          Back to the list
        </button>
      </p>
      {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
      <p>
        <button type="button" class="secondary" onClick={() => void sendPasswordLink()}>
          Send a password-set link
        </button>
      </p>
      {passwordLink ? <LinkNotice what="The password-set link" email={detail.customer.email} sent={passwordLink} /> : null}
      <div class="segmented" role="group" aria-label="Customer view">
        {(['overview', 'activity'] as const).map((name) => (
          <button
            key={name}
            type="button"
            class={tab === name ? undefined : 'secondary'}
            aria-pressed={tab === name}
            onClick={() => setTab(name)}
          >
            {name === 'overview' ? 'Wallets and keys' : 'Activity'}
          </button>
        ))}
      </div>
      {tab === 'activity' ? <CustomerActivity customerId={id} keys={detail.keys} /> : null}
      <div class="console-grid" hidden={tab !== 'overview'}>
        <div>
          <h3>Wallets</h3>
          <p data-testid="customer-balance">
            Token wallet {usd(w.balance.micros)} · held {usd(w.holds.micros)} · available {usd(w.available.micros)}
          </p>
          <p>Cash wallet {usd(w.cash_balance.micros)}</p>
          <p>Plan: {w.plan ? `${w.plan} until ${dateTime(w.plan_ends_at)}` : 'pay as you go'}</p>
          {detail.signup ? (
            <dl data-testid="customer-signup">
              <dt>Signed up for</dt>
              <dd>
                {detail.signup.plan_id ?? '—'}
                {detail.signup.amount_usd_micros !== null ? ` · ${usd(detail.signup.amount_usd_micros)}` : ''}
                {detail.signup.source ? ` · from ${detail.signup.source}` : ''}
              </dd>
              <dt>Country</dt>
              <dd>{[detail.signup.country_name, detail.signup.country_code].filter(Boolean).join(' · ') || '—'}</dd>
              <dt>Device</dt>
              <dd>{detail.signup.device_fingerprint ?? '—'}</dd>
              <dt>Mobile</dt>
              <dd>{detail.signup.mobile_number ?? '—'}</dd>
            </dl>
          ) : null}
          <form onSubmit={adjust}>
            <fieldset>
              <legend>Adjust a wallet</legend>
              <Field label="Amount (USD, negative to debit)" value={amount} onValue={setAmount} inputMode="decimal" required />
              <Field label="Reason" value={reason} onValue={setReason} required maxLength={500} />
              <div class="field">
                <label for="adjust-wallet">Wallet</label>
                <select
                  id="adjust-wallet"
                  value={wallet}
                  onChange={(event) => setWallet((event.currentTarget as HTMLSelectElement).value as 'token' | 'cash')}
                >
                  <option value="token">Token wallet</option>
                  <option value="cash">Cash wallet</option>
                </select>
              </div>
              <button type="submit">Apply adjustment</button>
            </fieldset>
          </form>
          <form onSubmit={grant}>
            <fieldset>
              <legend>Grant an Unlimited plan</legend>
              <Field label="Plan id" value={plan} onValue={setPlan} required />
              <Field label="Days (blank: the plan's own)" value={days} onValue={setDays} inputMode="numeric" />
              <button type="submit">Grant plan</button>
            </fieldset>
          </form>
        </div>
        <div>
          <h3>Keys</h3>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {detail.keys.map((key) => (
                  <tr key={key.id}>
                    <td>
                      <code>
                        {key.prefix}…{key.last_four}
                      </code>
                      {key.name ? <div class="muted">{key.name}</div> : null}
                    </td>
                    <td>{key.kind}</td>
                    <td>{dateTime(key.last_used_at)}</td>
                    <td>
                      <button type="button" class="danger" onClick={() => void revoke(key)} aria-label={`Revoke key ${key.id}`}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <form onSubmit={issueKey}>
            <fieldset>
              <legend>Issue a managed key</legend>
              <Field label="Key name (optional)" value={keyName} onValue={setKeyName} maxLength={100} />
              <button type="submit">Issue key</button>
            </fieldset>
          </form>
          {issued ? (
            <Notice kind="ok">
              New key (shown once): <span class="secret">{issued}</span>
            </Notice>
          ) : null}
        </div>
      </div>
    </section>
  );
}

export function CustomersSection() {
  const [rows, setRows] = useState<CustomerRow[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [search, setSearch] = useState('');
  const [created, setCreated] = useState<{ email: string; token: string; sent: SentLink | null } | null>(null);

  // Only the latest load may fill the list: the first page, answered after a search sent meanwhile, would replace
  // the search's answer with every customer.
  const latest = useRef(0);
  const load = async (after: number | null, filter = search) => {
    const sequence = ++latest.current;
    try {
      const page = await admin.get<{ data: CustomerRow[]; next_after_id: number | null }>(
        `/api/admin/customers${query({ limit: 100, after_id: after, email: filter.trim() || undefined })}`,
      );
      if (sequence !== latest.current) return;
      setRows((current) => (after !== null && current ? [...current, ...page.data] : page.data));
      setNext(page.next_after_id);
    } catch (caught) {
      setError(message(caught));
    }
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps -- loads the first page once; load reads the latest filters
  useEffect(() => void load(null), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const made = await admin.post<{ customer: CustomerRow; api_key: string }>('/api/admin/customers', { email });
      // The new customer signs in with a password it chooses through this link (mailed, or shown when there is no SMTP).
      const sent = await admin.post<SentLink>(`/api/admin/customers/${made.customer.id}/password-link`).catch(() => null);
      setCreated({ email: made.customer.email, token: made.api_key, sent });
      setEmail('');
      await load(null);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : message(caught));
    }
  };

  if (selected !== null) return <CustomerDetail id={selected} onClose={() => setSelected(null)} />;
  return (
    <>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Card title="Customers">
        <form
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            void load(null);
          }}
        >
          <Field label="Search by email" type="search" value={search} onValue={setSearch} />
          <button type="submit" class="secondary">
            Search
          </button>
        </form>
        {rows === null ? (
          <p aria-busy="true">Loading…</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col">Balance</th>
                  <th scope="col">Spent, 30 days</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td>{row.id}</td>
                    <td>
                      <button type="button" class="secondary" onClick={() => setSelected(row.id)}>
                        {row.email}
                      </button>
                    </td>
                    <td>
                      {row.status}
                      {row.vip ? ' · VIP' : ''}
                    </td>
                    <td data-testid={`balance-${row.id}`}>{usd(row.balance?.micros ?? 0)}</td>
                    <td data-testid={`spent-${row.id}`}>{usd(row.spent_30d?.micros ?? 0)}</td>
                    <td>{dateTime(row.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {next !== null ? (
          <button type="button" class="secondary" onClick={() => void load(next)}>
            Show more
          </button>
        ) : null}
      </Card>
      <Card title="New customer">
        <form onSubmit={create}>
          <Field label="Email" type="email" value={email} onValue={setEmail} required />
          <button type="submit">Create customer</button>
        </form>
        {created ? (
          <>
            <Notice kind="ok">
              Created {created.email}. Its System Token (shown once): <span class="secret">{created.token}</span>
            </Notice>
            {created.sent ? <LinkNotice what="A password-set link" email={created.email} sent={created.sent} /> : null}
          </>
        ) : null}
      </Card>
    </>
  );
}
