/**
 * Invites and mail: invite someone to register (the link is shown, and mailed when SMTP is configured), the
 * invites sent so far, and the outbox, where every mail waits when the service has no SMTP server.
 */
import { useEffect, useState } from 'preact/hooks';
import { query } from '../shared/api';
import { dateTime } from '../shared/format';
import { Card, Field, Notice } from '../shared/ui';
import { admin } from './admin-api';

export interface SentLink {
  link: string;
  expires_at: string;
  delivery: 'smtp' | 'outbox' | 'failed';
}
interface Invite {
  id: number;
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  customer_id: number | null;
}
interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  created_at: string;
}

/**
 * The link just made, with how it travels: mailed, waiting in the outbox, or (send failed) only here. `what` names
 * the link ("The invite") and starts the sentence.
 */
export function LinkNotice({ what, email, sent }: { what: string; email: string; sent: SentLink }) {
  const how =
    sent.delivery === 'smtp'
      ? `${what} was mailed to ${email}.`
      : sent.delivery === 'outbox'
        ? `${what} was not mailed, since no SMTP server is configured: it waits in the outbox; give ${email} this link yourself.`
        : `${what} could not be mailed to ${email} (see the log); give them this link yourself.`;
  return (
    <Notice kind={sent.delivery === 'failed' ? 'error' : 'ok'}>
      <p>
        {how} It works until {dateTime(sent.expires_at)}.
      </p>
      <p>
        <a href={sent.link} class="secret" data-testid="sent-link">
          {sent.link}
        </a>
      </p>
    </Notice>
  );
}

function InviteCard({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<(SentLink & { email: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const invite = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setSent(await admin.post<SentLink & { email: string }>('/api/admin/invites', { email: email.trim() }));
      setEmail('');
      onInvited();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <Card title="Invite a customer">
      <form onSubmit={invite}>
        <Field label="Email to invite" type="email" value={email} onValue={setEmail} required />
        <button type="submit">Send invite</button>
      </form>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {sent ? <LinkNotice what="The invite" email={sent.email} sent={sent} /> : null}
    </Card>
  );
}

export function MailSection() {
  const [invites, setInvites] = useState<{ registration: string; data: Invite[] } | null>(null);
  const [outbox, setOutbox] = useState<{ smtp: boolean; data: OutboxMail[] } | null>(null);
  const [to, setTo] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = async (filter = to) => {
    try {
      const [list, mail] = await Promise.all([
        admin.get<{ registration: string; data: Invite[] }>('/api/admin/invites'),
        admin.get<{ smtp: boolean; data: OutboxMail[] }>(`/api/admin/outbox${query({ limit: 50, to: filter.trim() || undefined })}`),
      ]);
      setInvites(list);
      setOutbox(mail);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps -- loads once on mount
  useEffect(() => void load(), []);
  return (
    <>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {invites ? (
        <p class="muted">
          Registration on this service: <strong>{invites.registration}</strong> (accounts.registration).
        </p>
      ) : null}
      <div class="console-grid">
        {invites?.registration === 'closed' ? null : <InviteCard onInvited={() => void load()} />}
        <Card title="Invites">
          {invites === null ? (
            <p aria-busy="true">Loading…</p>
          ) : invites.data.length === 0 ? (
            <p>No invites yet.</p>
          ) : (
            <ul data-testid="invites">
              {invites.data.map((invite) => (
                <li key={invite.id}>
                  {invite.email} · sent {dateTime(invite.created_at)} ·{' '}
                  {invite.used_at ? `registered ${dateTime(invite.used_at)}` : `open until ${dateTime(invite.expires_at)}`}
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
      <Card title="Outbox">
        {outbox && !outbox.smtp ? (
          <Notice kind="info">No SMTP server is configured (mail.smtp): mail is not sent, it waits here.</Notice>
        ) : null}
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void load();
          }}
        >
          <Field label="Recipient (blank: everyone)" type="email" value={to} onValue={setTo} />
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        {outbox === null ? (
          <p aria-busy="true">Loading…</p>
        ) : outbox.data.length === 0 ? (
          <p>The outbox is empty.</p>
        ) : (
          <ol class="outbox" data-testid="outbox">
            {outbox.data.map((mail) => (
              <li key={mail.id}>
                <details>
                  <summary>
                    {dateTime(mail.created_at)} · to {mail.to} · <strong>{mail.subject}</strong>
                  </summary>
                  <pre>{mail.text}</pre>
                </details>
              </li>
            ))}
          </ol>
        )}
      </Card>
    </>
  );
}
