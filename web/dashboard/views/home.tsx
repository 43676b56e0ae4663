/** Home: wallet, the last 30 days of usage, recent payments, key alerts and the inbox. */
import { useEffect, useState } from 'preact/hooks';
import { call, client, type Answer } from '../../shared/api';
import { BarChart, lastDays, type Series } from '../../shared/chart';
import { dateTime, number, usd } from '../../shared/format';
import { errorText, useAction, useLoad } from '../../shared/hooks';
import { Card, Notice, Outcome } from '../../shared/ui';
import { GetStarted } from './get-started';
import type { ViewProps } from './index';

type TokenUsage = Answer<'/api/v1/billing/token-usage'>;

export const ALERT_TEXT: Record<string, string> = {
  spending_limit_80: 'A key used 80 % of its spending limit',
  spending_limit_reached: 'A key reached its spending limit',
  key_expiring: 'A key expires within 7 days',
  key_expired: 'A key expired',
  key_replaced: 'A key was replaced',
  key_revoked: 'A key was revoked',
  new_network: 'A key was used from a new network',
  key_created: 'A key was created',
  key_changed: 'A key’s policy was changed',
  auto_topup_failed: 'An automatic top-up failed',
  email_changed: 'The account email was changed',
  email_change_undone: 'An email change was undone',
  password_changed: 'The password was changed',
  sso_link_issued: 'A sign-in link was issued',
  two_factor_enabled: 'Two-factor sign-in was turned on',
  two_factor_disabled: 'Two-factor sign-in was turned off',
  username_token_rotated: 'The username token was replaced',
};

/** An alert's cause in words (a cause without a sentence of its own is read from its name). */
export function alertText(cause: string): string {
  const known = ALERT_TEXT[cause];
  if (known) return known;
  const words = cause.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Spend (µUSD) and tokens per model and day, from `daily_by_model`. */
export function usageSeries(usage: TokenUsage, days: string[]): { spend: Series[]; tokens: Series[] } {
  const models = [...new Set(usage.daily_by_model.map((row) => row.model))].sort();
  const index = new Map(days.map((day, at) => [day, at]));
  const build = (pick: (row: TokenUsage['daily_by_model'][number]) => number) =>
    models.map((model) => {
      const values = days.map(() => 0);
      for (const row of usage.daily_by_model) if (row.model === model && index.has(row.date)) values[index.get(row.date)!] += pick(row);
      return { name: model, values };
    });
  return { spend: build((row) => row.spend.micros), tokens: build((row) => row.input_tokens + row.output_tokens) };
}

/** After a hosted card checkout the processor sends the buyer back with `?checkout=<session id>`. */
function useCheckoutReturn(onCredited: () => void) {
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error' | 'info'; text: string } | null>(null);
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const session = params.get('checkout');
    const clean = () => history.replaceState(null, '', `${location.pathname}${location.hash}`);
    if (session === 'cancelled') {
      setNotice({ kind: 'info', text: 'The checkout was cancelled; nothing was charged.' });
      clean();
    } else if (session) {
      setNotice({ kind: 'info', text: 'Confirming your payment…' });
      call(() => client.POST('/api/v1/wallet/top-up', { body: { session_id: session } }))
        .then((answer) => {
          setNotice(
            answer.purchase.status === 'paid'
              ? { kind: 'ok', text: `Payment received: ${usd(answer.purchase.credit.micros)} added to your wallet.` }
              : { kind: 'info', text: `Payment ${answer.purchase.status}; the credit arrives when the processor confirms it.` },
          );
          onCredited();
        })
        .catch((caught: unknown) => setNotice({ kind: 'error', text: errorText(caught) }))
        .finally(clean);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- handles the checkout return once, on mount
  }, []);
  return notice;
}

export function HomeView({ me, reloadMe }: ViewProps) {
  const wallet = useLoad(() => call(() => client.GET('/api/v1/wallet/status')));
  const usage = useLoad(() => call(() => client.GET('/api/v1/billing/token-usage', { params: { query: { days: 30, limit: 10 } } })));
  const payments = useLoad(() => call(() => client.GET('/api/v1/wallet/payments', { params: { query: { limit: 5 } } })));
  const alerts = useLoad(() => call(() => client.GET('/api/v1/me/api-key-alerts')));
  const inbox = useLoad(() => call(() => client.GET('/api/v1/messages', { params: { query: { limit: 20 } } })));
  const action = useAction();
  const checkout = useCheckoutReturn(() => {
    void wallet.reload();
    void payments.reload();
    void reloadMe();
  });
  const days = lastDays(30);
  const series = usage.data ? usageSeries(usage.data, days) : null;
  const status = wallet.data;

  return (
    <>
      <h1>Home</h1>
      {checkout ? <Notice kind={checkout.kind}>{checkout.text}</Notice> : null}
      <Outcome outcome={action.outcome} />
      <GetStarted me={me} />
      <div class="grid">
        <Card title="Wallet">
          <p class="stat" data-testid="balance">
            {usd(status?.balance.micros ?? me.wallet.micros)}
          </p>
          <p class="muted">
            Available {usd(status?.available.micros ?? me.wallet.available.micros)} · held for calls in flight{' '}
            {usd(status?.holds.micros ?? me.wallet.held.micros)}
          </p>
          <p class="muted">
            Plan: {status?.plan ?? me.wallet.plan ?? 'pay as you go'}
            {status?.plan_ends_at ? ` (until ${dateTime(status.plan_ends_at)})` : ''}
          </p>
          <a href="#/money">Add credit</a>
        </Card>
        <Card title={`Inbox${inbox.data ? ` (${inbox.data.unread_count} unread)` : ''}`}>
          {inbox.error ? <Notice kind="error">{inbox.error}</Notice> : null}
          {inbox.data && inbox.data.data.length === 0 ? <p class="muted">No messages.</p> : null}
          <ul class="plain-list">
            {inbox.data?.data.slice(0, 5).map((message) => (
              <li key={message.id}>
                <details>
                  <summary class={message.read ? undefined : 'unread'}>
                    {message.title}
                    {message.read ? '' : ' (unread)'}
                  </summary>
                  <p>{message.body}</p>
                  <p class="muted">{dateTime(message.created_at)}</p>
                  {message.read ? null : (
                    <button
                      type="button"
                      class="secondary"
                      onClick={() =>
                        action.run(
                          async () =>
                            void (
                              await call(() =>
                                client.POST('/api/v1/messages/{message_id}/read', { params: { path: { message_id: message.id } } }),
                              ),
                              await inbox.reload()
                            ),
                        )
                      }
                    >
                      Mark read
                    </button>
                  )}
                </details>
              </li>
            ))}
          </ul>
        </Card>
        <Card title={`Alerts${alerts.data ? ` (${alerts.data.unacknowledged_count})` : ''}`}>
          {alerts.error ? <Notice kind="error">{alerts.error}</Notice> : null}
          {alerts.data && alerts.data.data.length === 0 ? <p class="muted">No open alerts.</p> : null}
          <ul class="plain-list">
            {alerts.data?.data.slice(0, 5).map((alert) => (
              <li key={alert.id}>
                {alertText(alert.cause)}
                {alert.key_id ? ` (key ${alert.key_id})` : ''} <span class="muted">{dateTime(alert.created_at)}</span>{' '}
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    action.run(
                      async () =>
                        void (
                          await call(() =>
                            client.POST('/api/v1/me/api-key-alerts/{event_id}/acknowledge', { params: { path: { event_id: alert.id } } }),
                          ),
                          await alerts.reload()
                        ),
                    )
                  }
                >
                  Dismiss
                </button>
              </li>
            ))}
          </ul>
        </Card>
      </div>
      <Card title="Usage, last 30 days">
        {usage.error ? <Notice kind="error">{usage.error}</Notice> : null}
        {series ? (
          <>
            <BarChart
              title="Daily spend by model"
              days={days}
              series={series.spend}
              format={(value) => usd(value)}
              empty="No billed calls in the last 30 days."
            />
            <BarChart
              title="Daily tokens by model"
              days={days}
              series={series.tokens}
              format={(value) => number(value)}
              empty="No tokens in the last 30 days."
            />
          </>
        ) : (
          <p aria-busy="true">Loading…</p>
        )}
      </Card>
      <Card title="Recent payments">
        {payments.error ? <Notice kind="error">{payments.error}</Notice> : null}
        {payments.data && payments.data.payments.length === 0 ? <p class="muted">No payments yet.</p> : null}
        {payments.data && payments.data.payments.length > 0 ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Wallet</th>
                  <th scope="col" class="num">
                    Amount
                  </th>
                </tr>
              </thead>
              <tbody>
                {payments.data.payments.map((entry) => (
                  <tr key={entry.id}>
                    <td>{dateTime(entry.created_at)}</td>
                    <td>{entry.memo ?? entry.kind.replace(/_/g, ' ')}</td>
                    <td>{entry.wallet}</td>
                    <td class="num">{usd(entry.amount.micros)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
    </>
  );
}
