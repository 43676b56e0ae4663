/** Providers and models: each upstream with its key masked and, on request, whether it answers; each model's price. */
import { useEffect, useState } from 'preact/hooks';
import { Card, Notice } from '../shared/ui';
import { admin } from './admin-api';

interface Provider {
  id: string;
  kind: string;
  base_url: string;
  key: string | null;
  key_variable: string | null;
  models: string[];
  health: { reachable: boolean; status: number | null; latency_ms: number; error?: string } | null;
}
interface Model {
  id: string;
  provider: string;
  upstream_model: string;
  hidden: boolean;
  aliases: string[];
  price: { label: string; input_usd_per_million: string; output_usd_per_million: string };
}

function health(provider: Provider): string {
  if (!provider.health) return 'not checked';
  if (provider.health.reachable) return `answers (${provider.health.status}, ${provider.health.latency_ms} ms)`;
  return `does not answer: ${provider.health.error ?? `status ${provider.health.status}`}`;
}

export function ProvidersCard() {
  const [data, setData] = useState<{ providers: Provider[]; models: Model[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const load = async (check: boolean) => {
    setChecking(check);
    try {
      setData(await admin.get(`/api/admin/providers${check ? '?check=true' : ''}`));
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setChecking(false);
    }
  };
  useEffect(() => void load(false), []);
  return (
    <Card title="Providers and models">
      {error ? <Notice kind="error">{error}</Notice> : null}
      {data === null ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <div class="table-wrap">
            <table data-testid="providers">
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Key</th>
                  <th scope="col">Health</th>
                </tr>
              </thead>
              <tbody>
                {data.providers.map((provider) => (
                  <tr key={provider.id}>
                    <td>
                      <code>{provider.id}</code> <span class="muted">{provider.kind}</span>
                      <div class="muted">{provider.base_url}</div>
                    </td>
                    <td>
                      {provider.key ? <code>{provider.key}</code> : <strong>no key</strong>}
                      {provider.key_variable ? <div class="muted">from {provider.key_variable}</div> : null}
                    </td>
                    <td>{health(provider)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <button type="button" class="secondary" disabled={checking} onClick={() => void load(true)}>
            {checking ? 'Checking…' : 'Check providers now'}
          </button>
          <div class="table-wrap">
            <table data-testid="models">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Provider → upstream</th>
                  <th scope="col">Price per 1M in / out</th>
                </tr>
              </thead>
              <tbody>
                {data.models.map((model) => (
                  <tr key={model.id}>
                    <td>
                      <code>{model.id}</code>
                      {model.aliases.map((alias) => (
                        <span key={alias} class="badge">
                          {alias}
                        </span>
                      ))}
                      {model.hidden ? <span class="badge">hidden</span> : null}
                    </td>
                    <td>
                      {model.provider} → <code>{model.upstream_model}</code>
                    </td>
                    <td>
                      ${model.price.input_usd_per_million} / ${model.price.output_usd_per_million}{' '}
                      <span class="muted">{model.price.label}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Card>
  );
}
