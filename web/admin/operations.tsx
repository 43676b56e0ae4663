/** Messages (inbox broadcast, desktop push), desktop bug reports and presence, and the ledger invariants. */
import { useEffect, useId, useState } from 'preact/hooks';
import { dateTime } from '../shared/format';
import { Card, Field, Notice } from '../shared/ui';
import { admin } from './admin-api';

type Status = { kind: 'ok' | 'error'; text: string } | null;

export function MessagesSection() {
  const [status, setStatus] = useState<Status>(null);
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [customer, setCustomer] = useState('');
  const [channel, setChannel] = useState<'inbox' | 'push'>('inbox');
  const [level, setLevel] = useState('info');
  const bodyId = useId();
  const channelId = useId();
  const levelId = useId();

  const send = async (event: Event) => {
    event.preventDefault();
    const customerId = customer.trim() ? Number(customer) : undefined;
    if (customerId !== undefined && !(Number.isInteger(customerId) && customerId > 0)) {
      setStatus({ kind: 'error', text: 'The customer id is a positive whole number (blank: everyone).' });
      return;
    }
    try {
      if (channel === 'inbox') {
        await admin.post(
          '/api/admin/messages',
          customerId === undefined ? { all: true, title, body } : { customer_id: customerId, title, body },
        );
      } else {
        await admin.post('/api/admin/push', { ...(customerId === undefined ? {} : { customer_id: customerId }), title, body, level });
      }
      setStatus({ kind: 'ok', text: `Sent to ${customerId === undefined ? 'every customer' : `customer ${customerId}`}.` });
      setTitle('');
      setBody('');
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };

  return (
    <Card title="Send a message">
      {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
      <form onSubmit={send}>
        <div class="field">
          <label for={channelId}>Channel</label>
          <select
            id={channelId}
            value={channel}
            onChange={(event) => setChannel((event.currentTarget as HTMLSelectElement).value as 'inbox' | 'push')}
          >
            <option value="inbox">Dashboard inbox</option>
            <option value="push">Desktop push message</option>
          </select>
        </div>
        <Field label="Customer id (blank: broadcast to all)" value={customer} onValue={setCustomer} inputMode="numeric" />
        <Field label="Title" value={title} onValue={setTitle} required maxLength={200} />
        <div class="field">
          <label for={bodyId}>Message</label>
          <textarea id={bodyId} value={body} required onInput={(event) => setBody((event.currentTarget as HTMLTextAreaElement).value)} />
        </div>
        {channel === 'push' ? (
          <div class="field">
            <label for={levelId}>Level</label>
            <select id={levelId} value={level} onChange={(event) => setLevel((event.currentTarget as HTMLSelectElement).value)}>
              <option value="info">Info</option>
              <option value="warning">Warning</option>
              <option value="critical">Critical</option>
            </select>
          </div>
        ) : null}
        <button type="submit">Send</button>
      </form>
    </Card>
  );
}

interface BugReport {
  id: number;
  customer_id: number;
  email: string;
  text: string;
  app_version: string | null;
  os: string | null;
  created_at: string | number;
}
interface Online {
  customer_id: number;
  email: string;
  app_version: string | null;
  os: string | null;
  last_seen_at: string | number;
}

export function DesktopSection() {
  const [reports, setReports] = useState<BugReport[] | null>(null);
  const [online, setOnline] = useState<{ online_count: number; data: Online[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      const [bugs, presence] = await Promise.all([
        admin.get<{ data: BugReport[] }>('/api/admin/desktop/bug-reports?limit=50'),
        admin.get<{ online_count: number; data: Online[] }>('/api/admin/desktop/presence?limit=100'),
      ]);
      setReports(bugs.data);
      setOnline(presence);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  useEffect(() => void load(), []);
  return (
    <>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Card title={`Online now${online ? ` (${online.online_count})` : ''}`}>
        {online === null ? (
          <p aria-busy="true">Loading…</p>
        ) : online.data.length === 0 ? (
          <p class="muted">No desktop client is online.</p>
        ) : (
          <ul>
            {online.data.map((entry) => (
              <li key={entry.customer_id}>
                {entry.email} · {entry.app_version ?? '?'} on {entry.os ?? '?'} · seen {dateTime(entry.last_seen_at)}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Bug reports">
        {reports === null ? (
          <p aria-busy="true">Loading…</p>
        ) : reports.length === 0 ? (
          <p class="muted">No bug reports.</p>
        ) : (
          reports.map((report) => (
            <article key={report.id} class="card">
              <h3>
                #{report.id} · {report.email} · {dateTime(report.created_at)}
              </h3>
              <p class="muted">
                {report.app_version ?? '?'} on {report.os ?? '?'}
              </p>
              <pre>{report.text}</pre>
            </article>
          ))
        )}
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </Card>
    </>
  );
}

export function LedgerSection() {
  const [check, setCheck] = useState<{ ok: boolean; checked_at: string; [key: string]: unknown } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setError(null);
    try {
      setCheck(await admin.get('/api/admin/billing/invariants'));
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  useEffect(() => void run(), []);
  return (
    <Card title="Ledger invariants">
      {error ? <Notice kind="error">{error}</Notice> : null}
      {check ? (
        <>
          <p data-testid="ledger-result" class={check.ok ? 'ok-text' : 'bad-text'}>
            {check.ok ? 'All invariants hold.' : 'Invariants violated.'} <span class="muted">Checked {dateTime(check.checked_at)}</span>
          </p>
          {check.ok ? null : <pre>{JSON.stringify(check, null, 2)}</pre>}
        </>
      ) : (
        <p aria-busy="true">Checking…</p>
      )}
      <button type="button" class="secondary" onClick={() => void run()}>
        Check again
      </button>
    </Card>
  );
}
