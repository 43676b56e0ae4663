/** API keys: the account's keys, a new key with its policy (secret shown once), revoke, replace, usage, health. */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { call, client, type Answer, type Body } from '../../shared/api';
import { BarChart, lastDays } from '../../shared/chart';
import { dateTime, usd } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { Card, Check, Field, Notice, Outcome, SelectField } from '../../shared/ui';
import type { ViewProps } from './index';

type ApiKey = Answer<'/api/v1/me/api-keys'>['data'][number];
type KeyPolicyView = ApiKey['policy'];
type Health = Answer<'/api/v1/me/api-keys/{key_id}/health'>;
type NewKey = Body<'/api/v1/me/api-keys', 'post'>;
type Surface = NonNullable<NewKey['allowed_surfaces']>[number];
type Period = NonNullable<NewKey['spending_period']>;

const PERIODS: Period[] = ['day', 'week', 'month'];
const SURFACES: { id: Surface; label: string }[] = [
  { id: 'gateway', label: 'Model API (/v1)' },
  { id: 'projects', label: 'Projects' },
  { id: 'account', label: 'Account' },
  { id: 'rpc', label: 'RPC' },
];

function policyText(policy: KeyPolicyView): string {
  const parts = [
    policy.allowed_surfaces ? `surfaces: ${policy.allowed_surfaces.join(', ')}` : 'all surfaces',
    policy.allowed_models ? `models: ${policy.allowed_models.join(', ')}` : 'all models',
  ];
  if (policy.spending_limit_micros !== null)
    parts.push(`limit ${usd(policy.spending_limit_micros)} per ${policy.spending_period ?? 'month'}`);
  return parts.join(' · ');
}

/** The one time a secret is visible: shown with a copy button. */
function Secret(props: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div class="notice ok" role="status">
      <p>
        <strong>Copy this key now.</strong> It is shown once and cannot be read again.
      </p>
      <code class="secret" data-testid="new-secret">
        {props.secret}
      </code>
      <div class="row">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          I saved it
        </button>
      </div>
    </div>
  );
}

function CreateKey(props: { models: string[]; onCreated: (secret: string) => void }) {
  const [name, setName] = useState('');
  const [surfaces, setSurfaces] = useState<Surface[]>([]);
  const [models, setModels] = useState<string[]>([]);
  const [limit, setLimit] = useState('');
  const [period, setPeriod] = useState<Period>('month');
  const [expires, setExpires] = useState('');
  const action = useAction();
  const toggle = <T extends string>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((item) => item !== value));
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body: Body<'/api/v1/me/api-keys', 'post'> = {};
      if (name.trim()) body.name = name.trim();
      if (surfaces.length) body.allowed_surfaces = surfaces;
      if (models.length) body.allowed_models = models;
      if (limit.trim()) {
        const dollars = Number(limit);
        if (!Number.isFinite(dollars) || dollars < 0) throw new Error('The spending limit is a number of US dollars.');
        body.spending_limit_micros = Math.round(dollars * 1_000_000);
        body.spending_period = period;
      }
      if (expires) body.expires_at = new Date(`${expires}T23:59:59Z`).toISOString();
      const created = await call(() => client.POST('/api/v1/me/api-keys', { body }));
      props.onCreated(created.key);
      setName('');
      setSurfaces([]);
      setModels([]);
      setLimit('');
      setExpires('');
    });
  };
  return (
    <form onSubmit={submit} aria-label="Create an API key">
      <Outcome outcome={action.outcome} />
      <Field label="Name" value={name} onValue={setName} maxLength={100} />
      <fieldset>
        <legend>Surfaces (none ticked: all)</legend>
        <div class="checks">
          {SURFACES.map((surface) => (
            <Check
              key={surface.id}
              label={surface.label}
              checked={surfaces.includes(surface.id)}
              onChecked={(on) => setSurfaces(toggle(surfaces, surface.id, on))}
            />
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Models (none ticked: all)</legend>
        <div class="checks">
          {props.models.map((model) => (
            <Check key={model} label={model} checked={models.includes(model)} onChecked={(on) => setModels(toggle(models, model, on))} />
          ))}
        </div>
      </fieldset>
      <div class="grid">
        <Field label="Spending limit (USD, optional)" value={limit} onValue={setLimit} inputMode="decimal" />
        <SelectField
          label="Limit period"
          value={period}
          onValue={(value) => setPeriod(value as Period)}
          options={PERIODS.map((value) => ({ value, label: `per ${value}` }))}
        />
        <div class="field">
          <label for="key-expiry">Expires (optional)</label>
          <input
            id="key-expiry"
            type="date"
            value={expires}
            onInput={(event) => setExpires((event.currentTarget as HTMLInputElement).value)}
          />
        </div>
      </div>
      <button type="submit" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}

function KeyDetails({ apiKey }: { apiKey: ApiKey }) {
  const usage = useLoad(
    () => call(() => client.GET('/api/v1/me/api-keys/{key_id}/usage', { params: { path: { key_id: apiKey.id }, query: { days: 30 } } })),
    [apiKey.id],
  );
  const [health, setHealth] = useState<Health | null>(null);
  const action = useAction();
  const days = lastDays(30);
  const byDay = new Map((usage.data?.daily ?? []).map((day) => [day.date, day.spend.micros]));
  return (
    <div>
      {usage.data ? (
        <BarChart
          title={`Spend of “${apiKey.name}”, last 30 days (${usage.data.totals.requests} requests, ${usd(usage.data.totals.spend.micros)})`}
          days={days}
          series={[{ name: 'spend', values: days.map((day) => byDay.get(day) ?? 0) }]}
          format={(value) => usd(value)}
          empty="No calls with this key."
        />
      ) : usage.error ? (
        <Notice kind="error">{usage.error}</Notice>
      ) : null}
      <button
        type="button"
        class="secondary"
        disabled={action.busy}
        onClick={() =>
          action.run(async () =>
            setHealth(await call(() => client.GET('/api/v1/me/api-keys/{key_id}/health', { params: { path: { key_id: apiKey.id } } }))),
          )
        }
      >
        Run health check
      </button>
      <Outcome outcome={action.outcome} />
      {health ? (
        <ul class="plain-list" aria-label="Health check result" data-testid="health">
          <li>Overall: {health.ok ? 'ready' : 'not ready'}</li>
          <li>Key: {health.key.active ? 'active' : health.key.revoked ? 'revoked' : 'inactive'}</li>
          <li>
            Model {health.model.requested}:{' '}
            {health.model.allowed ? `allowed (→ ${health.model.resolved ?? '?'})` : 'not allowed for this key'}
          </li>
          <li>
            Wallet: {health.wallet.ok ? 'funded' : 'no available credit'} ({usd(health.wallet.available.micros)})
          </li>
          <li>
            Destination:{' '}
            {health.destination
              ? `${health.destination.provider ?? '—'} ${health.destination.reachable ? `reachable (${health.destination.latency_ms ?? '?'} ms)` : 'unreachable'}`
              : '—'}
          </li>
        </ul>
      ) : null}
    </div>
  );
}

/** One table of keys: usage for each, replace and revoke for the customer's own. */
function KeyTable(props: {
  keys: ApiKey[];
  open: number | null;
  setOpen: (id: number | null) => void;
  busy: boolean;
  replace: (key: ApiKey) => void;
  revoke: (key: ApiKey) => void;
}) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Policy</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => (
            <Fragment key={key.id}>
              <tr data-testid={`key-${key.id}`}>
                <td>
                  {key.name}
                  {key.expires_at ? <div class="muted">expires {dateTime(key.expires_at)}</div> : null}
                </td>
                <td>
                  <code>
                    {key.prefix}…{key.last_four}
                  </code>
                </td>
                <td>{policyText(key.policy)}</td>
                <td>{dateTime(key.last_used_at)}</td>
                <td>
                  <div class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded={props.open === key.id}
                      onClick={() => props.setOpen(props.open === key.id ? null : key.id)}
                    >
                      {props.open === key.id ? 'Hide usage' : 'Usage'}
                      <span class="visually-hidden"> of {key.name}</span>
                    </button>
                    {key.kind === 'user_api_key' ? (
                      <>
                        <button type="button" class="secondary" disabled={props.busy} onClick={() => props.replace(key)}>
                          Replace<span class="visually-hidden"> {key.name}</span>
                        </button>
                        <button type="button" class="danger" disabled={props.busy} onClick={() => props.revoke(key)}>
                          Revoke<span class="visually-hidden"> {key.name}</span>
                        </button>
                      </>
                    ) : null}
                  </div>
                </td>
              </tr>
              {props.open === key.id ? (
                <tr>
                  <td colSpan={5}>
                    <KeyDetails apiKey={key} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function KeysView({ me }: ViewProps) {
  const keys = useLoad(() => call(() => client.GET('/api/v1/me/api-keys')));
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const action = useAction();
  const own = (keys.data?.data ?? []).filter((key) => !key.system);
  const system = (keys.data?.data ?? []).filter((key) => key.system);
  const models = [...new Set(me.prices.map((price) => price.model))];
  const revoke = (key: ApiKey) => {
    if (!confirm(`Revoke “${key.name}”? Calls with it stop at once.`)) return;
    void action.run(async () => {
      await call(() => client.DELETE('/api/v1/me/api-keys/{key_id}', { params: { path: { key_id: key.id } } }));
      await keys.reload();
      return `Key “${key.name}” revoked.`;
    });
  };
  const replace = (key: ApiKey) => {
    void action.run(async () => {
      const issued = await call(() => client.POST('/api/v1/me/api-keys/{key_id}/replace', { params: { path: { key_id: key.id } } }));
      setSecret(issued.key);
      await keys.reload();
      return `Key “${key.name}” replaced; the old secret no longer works.`;
    });
  };
  return (
    <>
      <h1>API keys</h1>
      <p class="muted">
        Use a key with any OpenAI or Anthropic client: base URL <code>{String(me.base_url ?? '/v1')}</code>.
      </p>
      {secret ? <Secret secret={secret} onDone={() => setSecret(null)} /> : null}
      <Outcome outcome={action.outcome} />
      <Card title="Your keys">
        {keys.error ? <Notice kind="error">{keys.error}</Notice> : null}
        <KeyTable keys={own} open={open} setOpen={setOpen} busy={action.busy} replace={replace} revoke={revoke} />
      </Card>
      {system.length > 0 ? (
        <Card title="Keys the service keeps for you">
          <p class="muted">
            The System Token and the Username token sign in the desktop app and the command line; the agent runtime key is what your
            projects' agent calls the models with, during your own turns only. They are not yours to revoke here.
          </p>
          <KeyTable keys={system} open={open} setOpen={setOpen} busy={action.busy} replace={replace} revoke={revoke} />
        </Card>
      ) : null}
      <Card title="Create a key">
        <CreateKey
          models={models}
          onCreated={(created) => {
            setSecret(created);
            void keys.reload();
          }}
        />
      </Card>
    </>
  );
}
