/** Providers, models and prices: the upstreams and models (providers.tsx), where each model alias (`power-ai`) points, and the rate card in force per model. */
import { useEffect, useId, useState } from 'preact/hooks';
import { Card, Notice } from '../shared/ui';
import { admin } from './admin-api';
import { ProvidersCard } from './providers';

interface Prices {
  model: string;
  rate_card: string;
  label: string;
  input_usd_per_million: string;
  output_usd_per_million: string;
}

function Choice(props: { label: string; value: string; options: string[]; onValue: (value: string) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onValue((event.currentTarget as HTMLSelectElement).value)}>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}

export function RoutingSection() {
  const [aliases, setAliases] = useState<Record<string, string> | null>(null);
  const [cards, setCards] = useState<{ name: string; label: string }[]>([]);
  const [active, setActive] = useState<Prices[]>([]);
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [alias, setAlias] = useState('power-ai');
  const [destination, setDestination] = useState('');
  const [target, setTarget] = useState('');
  const [card, setCard] = useState('');

  const load = async () => {
    try {
      const [aliasList, rateCards] = await Promise.all([
        admin.get<{ aliases: Record<string, string> }>('/api/admin/aliases'),
        admin.get<{ cards: { name: string; label: string }[]; active: Prices[] }>('/api/admin/rate-cards'),
      ]);
      setAliases(aliasList.aliases);
      setCards(rateCards.cards);
      setActive(rateCards.active);
      const names = Object.keys(aliasList.aliases);
      const chosen = names.includes(alias) ? alias : (names[0] ?? '');
      setAlias(chosen);
      setDestination((current) => current || aliasList.aliases[chosen] || '');
      setTarget((current) => current || rateCards.active[0]?.model || '');
      setCard((current) => current || rateCards.cards[0]?.name || '');
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps -- loads once on mount
  useEffect(() => void load(), []);

  const models = active.map((prices) => prices.model).filter((model) => !(aliases && model in aliases));

  const switchAlias = async (event: Event) => {
    event.preventDefault();
    try {
      const result = await admin.put<{ alias: string; model: string }>(`/api/admin/aliases/${encodeURIComponent(alias)}`, {
        model: destination,
      });
      setStatus({ kind: 'ok', text: `${result.alias} now goes to ${result.model}.` });
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };

  const switchCard = async (event: Event) => {
    event.preventDefault();
    try {
      const result = await admin.put<Prices>('/api/admin/rate-cards/active', { target, card });
      setStatus({ kind: 'ok', text: `${result.model} is now priced by ${result.rate_card}.` });
      await load();
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };

  return (
    <>
      {status ? <Notice kind={status.kind}>{status.text}</Notice> : null}
      <ProvidersCard />
      <div class="console-grid">
        <Card title="Model aliases">
          {aliases === null ? (
            <p aria-busy="true">Loading…</p>
          ) : (
            <>
              <ul data-testid="aliases">
                {Object.entries(aliases).map(([name, model]) => (
                  <li key={name}>
                    <code>{name}</code> → <code>{model}</code>
                  </li>
                ))}
              </ul>
              <form onSubmit={switchAlias}>
                <Choice
                  label="Alias"
                  value={alias}
                  options={Object.keys(aliases)}
                  onValue={(value) => {
                    setAlias(value);
                    setDestination(aliases[value] ?? '');
                  }}
                />
                <Choice label="Destination model" value={destination} options={models} onValue={setDestination} />
                <button type="submit">Switch destination</button>
              </form>
            </>
          )}
        </Card>
        <Card title="Rate cards in force">
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Model or alias</th>
                  <th scope="col">Card</th>
                  <th scope="col">Input / output per 1M</th>
                </tr>
              </thead>
              <tbody>
                {active.map((prices) => (
                  <tr key={prices.model}>
                    <td>
                      <code>{prices.model}</code>
                    </td>
                    <td>{prices.label}</td>
                    <td>
                      ${prices.input_usd_per_million} / ${prices.output_usd_per_million}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <form onSubmit={switchCard}>
            <Choice label="Model or alias" value={target} options={active.map((prices) => prices.model)} onValue={setTarget} />
            <Choice label="Rate card" value={card} options={cards.map((entry) => entry.name)} onValue={setCard} />
            <button type="submit">Switch rate card</button>
          </form>
        </Card>
      </div>
    </>
  );
}
