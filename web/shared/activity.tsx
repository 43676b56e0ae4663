/**
 * The activity table shared by the dashboard (`/api/v1/activity`) and the operator console (one customer's
 * `/api/admin/customers/{id}/activity`): each billed call and agent turn with its key, requested → resolved
 * model, tokens, cost, latency, outcome and request id; filters (period, key, model, outcome, kind), "Show more"
 * paging and a CSV export of the same filters.
 */
import { useEffect, useState } from 'preact/hooks';
import { query, request } from './api';
import { dateTime, duration, number, usd } from './format';
import { errorText } from './hooks';
import { Notice, SelectField } from './ui';

interface Money {
  micros: number;
  usd: string;
}

export interface ActivityEntry {
  id: string;
  kind: 'call' | 'agent_turn';
  started_at: string;
  key: { id: number; name: string; last_four: string } | null;
  requested_model: string;
  model: string;
  operation: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost: Money;
  latency_ms: number | null;
  outcome: 'completed' | 'failed' | 'aborted' | 'expired' | 'open';
  request_id: string;
  project: { id: string; name: string | null } | null;
  turn_id: string | null;
}

interface ActivityAnswer {
  entries: ActivityEntry[];
  next_before: number | null;
  totals: { calls: number; cost: Money };
}

export const OUTCOME_LABELS: Record<ActivityEntry['outcome'], string> = {
  completed: 'Completed',
  failed: 'Failed',
  aborted: 'Stopped by the client',
  expired: 'Expired',
  open: 'In progress',
};

const PERIODS = [
  { value: '1', label: 'Today' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
  { value: '365', label: 'Last 365 days' },
];

export interface ActivityFilters {
  days: string;
  key_id: string;
  model: string;
  outcome: string;
  kind: string;
}

const ANY = { value: '', label: 'Any' };

function Filters(props: {
  filters: ActivityFilters;
  onChange: (next: ActivityFilters) => void;
  keys: { id: number; name: string }[];
  models: string[];
}) {
  const { filters } = props;
  const set = (field: keyof ActivityFilters) => (value: string) => props.onChange({ ...filters, [field]: value });
  return (
    <div class="filters" role="group" aria-label="Filters">
      <SelectField label="Period" value={filters.days} onValue={set('days')} options={PERIODS} />
      <SelectField
        label="Key"
        value={filters.key_id}
        onValue={set('key_id')}
        options={[ANY, ...props.keys.map((key) => ({ value: String(key.id), label: key.name }))]}
      />
      <SelectField
        label="Model"
        value={filters.model}
        onValue={set('model')}
        options={[ANY, ...props.models.map((model) => ({ value: model, label: model }))]}
      />
      <SelectField
        label="Outcome"
        value={filters.outcome}
        onValue={set('outcome')}
        options={[ANY, ...Object.entries(OUTCOME_LABELS).map(([value, label]) => ({ value, label }))]}
      />
      <SelectField
        label="Kind"
        value={filters.kind}
        onValue={set('kind')}
        options={[ANY, { value: 'call', label: 'API calls' }, { value: 'agent_turn', label: 'Agent turns' }]}
      />
    </div>
  );
}

function What({ entry, projectLinks }: { entry: ActivityEntry; projectLinks: boolean }) {
  if (entry.kind === 'call') return <>API call · {entry.operation}</>;
  const name = entry.project ? (entry.project.name ?? 'Untitled project') : 'Agent turn';
  return (
    <>
      Agent turn · {entry.project && projectLinks ? <a href={`#/projects/${encodeURIComponent(entry.project.id)}`}>{name}</a> : name}
      <span class="muted"> ({entry.calls} model calls)</span>
    </>
  );
}

function Row({ entry, projectLinks }: { entry: ActivityEntry; projectLinks: boolean }) {
  const resolved = entry.requested_model === entry.model ? entry.model : `${entry.requested_model} → ${entry.model}`;
  return (
    <tr data-testid="activity-row">
      <td class="nowrap">{dateTime(entry.started_at)}</td>
      <td class="words">
        <What entry={entry} projectLinks={projectLinks} />
      </td>
      <td class="words">{entry.key ? `${entry.key.name}${entry.key.last_four ? ` …${entry.key.last_four}` : ''}` : '—'}</td>
      <td class="words">{resolved}</td>
      <td class="num">
        {number(entry.input_tokens)} / {number(entry.output_tokens)}
      </td>
      <td class="num" data-testid="activity-cost">
        {usd(entry.cost.micros)}
      </td>
      <td class="num">{duration(entry.latency_ms)}</td>
      <td class="nowrap">{OUTCOME_LABELS[entry.outcome]}</td>
      <td>
        <code class="request-id">{entry.kind === 'agent_turn' && entry.turn_id ? entry.turn_id : entry.request_id}</code>
      </td>
    </tr>
  );
}

export function ActivityTable(props: {
  /** `/api/v1/activity` or `/api/admin/customers/{id}/activity`; the CSV is the same path with `.csv`. */
  path: string;
  keys: { id: number; name: string }[];
  models: string[];
  /** Link agent turns to the project's live view (the dashboard only). */
  projectLinks?: boolean;
}) {
  const [filters, setFilters] = useState<ActivityFilters>({ days: '30', key_id: '', model: '', outcome: '', kind: '' });
  const [answer, setAnswer] = useState<ActivityAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const filterQuery = query({ ...filters });

  const load = async (before: number | null) => {
    setBusy(true);
    try {
      const page = await request<ActivityAnswer>('GET', `${props.path}${query({ ...filters, limit: 50, before })}`);
      setAnswer((current) => (before !== null && current ? { ...page, entries: [...current.entries, ...page.entries] } : page));
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void load(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reloads when the path or the filters change
  }, [props.path, filterQuery]);
  // The models this customer can call, and any other one seen in the entries (an operator's view has no list).
  const seen = (answer?.entries ?? []).flatMap((entry) => [entry.requested_model, entry.model]);
  const models = [...new Set([...props.models, ...seen, ...(filters.model ? [filters.model] : [])])].sort();

  return (
    <>
      <Filters filters={filters} onChange={setFilters} keys={props.keys} models={models} />
      <div class="row">
        <p class="grow" role="status" data-testid="activity-totals">
          {answer
            ? `${number(answer.totals.calls)} billed ${answer.totals.calls === 1 ? 'call' : 'calls'}, ${usd(answer.totals.cost.micros)} in this period.`
            : 'Loading…'}
        </p>
        <a class="button secondary" href={`${props.path}.csv${filterQuery}`} download>
          Export CSV
        </a>
      </div>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {answer && answer.entries.length === 0 ? <p class="muted">Nothing billed with these filters.</p> : null}
      {answer && answer.entries.length > 0 ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Activity">
          <table class="activity">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">What</th>
                <th scope="col">Key</th>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Tokens in / out
                </th>
                <th scope="col" class="num">
                  Cost
                </th>
                <th scope="col" class="num">
                  Latency
                </th>
                <th scope="col">Outcome</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              {answer.entries.map((entry) => (
                <Row key={entry.id} entry={entry} projectLinks={props.projectLinks ?? false} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {answer?.next_before ? (
        <button type="button" class="secondary" disabled={busy} onClick={() => load(answer.next_before)}>
          Show more
        </button>
      ) : null}
    </>
  );
}
