/**
 * Home's "Get started": the gateway's base URL, a key made on the spot (its secret shown once, here), and a
 * first call to copy for each client — curl, Python and TypeScript with the `openai` SDK, the Codex CLI and Claude
 * Code — filled in with the base URL, the key and the chosen model.
 */
import { useState } from 'preact/hooks';
import { call, client as api } from '../../shared/api';
import { CodeBlock, CopyButton } from '../../shared/copy';
import { usd } from '../../shared/format';
import { useAction } from '../../shared/hooks';
import { Card, Notice, Outcome, SelectField } from '../../shared/ui';
import type { Me } from './index';

export const KEY_PLACEHOLDER = 'YOUR_API_KEY';

export interface SnippetInput {
  /** The gateway's OpenAI-style base URL, ending in `/v1`. */
  baseUrl: string;
  key: string;
  model: string;
}

const json = (value: unknown) => JSON.stringify(value);

export const SNIPPETS: { id: string; label: string; build: (input: SnippetInput) => string }[] = [
  {
    id: 'curl',
    label: 'curl',
    build: ({ baseUrl, key, model }) =>
      [
        `curl -s ${baseUrl}/chat/completions \\`,
        `  -H "Authorization: Bearer ${key}" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '${json({ model, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 100 })}'`,
      ].join('\n'),
  },
  {
    id: 'python',
    label: 'Python',
    build: ({ baseUrl, key, model }) =>
      [
        '# pip install openai',
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url=${json(baseUrl)}, api_key=${json(key)})`,
        'reply = client.chat.completions.create(',
        `    model=${json(model)},`,
        '    messages=[{"role": "user", "content": "Say hello"}],',
        ')',
        'print(reply.choices[0].message.content)',
      ].join('\n'),
  },
  {
    id: 'typescript',
    label: 'TypeScript',
    build: ({ baseUrl, key, model }) =>
      [
        '// npm install openai',
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: '${key}' });`,
        'const reply = await client.chat.completions.create({',
        `  model: '${model}',`,
        "  messages: [{ role: 'user', content: 'Say hello' }],",
        '});',
        'console.log(reply.choices[0].message.content);',
      ].join('\n'),
  },
  {
    id: 'codex',
    label: 'Codex CLI',
    build: ({ baseUrl, key, model }) =>
      [
        '# ~/.codex/config.toml',
        `model = ${json(model)}`,
        'model_provider = "switchyard"',
        '',
        '[model_providers.switchyard]',
        'name = "Switchyard"',
        `base_url = ${json(baseUrl)}`,
        'env_key = "SWITCHYARD_API_KEY"',
        'wire_api = "responses"',
        '',
        '# then, in your shell:',
        `export SWITCHYARD_API_KEY=${key}`,
        'codex',
      ].join('\n'),
  },
  {
    id: 'claude-code',
    label: 'Claude Code',
    build: ({ baseUrl, key, model }) =>
      [
        `export ANTHROPIC_BASE_URL=${baseUrl.replace(/\/v1$/, '')}`,
        `export ANTHROPIC_API_KEY=${key}`,
        `export ANTHROPIC_MODEL=${model}`,
        `export ANTHROPIC_DEFAULT_HAIKU_MODEL=${model}`,
        'claude',
      ].join('\n'),
  },
];

/** The model a first call should use: the configured default when callable, else `power-ai`, else the first. */
export function firstModel(me: Me): string {
  const models = (me.prices ?? []).map((entry) => entry.model);
  if (me.default_model && models.includes(me.default_model)) return me.default_model;
  return models.includes('power-ai') ? 'power-ai' : (models[0] ?? me.default_model ?? 'power-ai');
}

export function GetStarted({ me }: { me: Me }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [model, setModel] = useState(() => firstModel(me));
  const [client, setClient] = useState(SNIPPETS[0]!.id);
  const action = useAction();
  const baseUrl = me.base_url;
  const snippet = SNIPPETS.find((candidate) => candidate.id === client) ?? SNIPPETS[0]!;
  const create = () =>
    action.run(async () => {
      const created = await call(() => api.POST('/api/v1/me/api-keys', { body: { name: 'Get started' } }));
      setSecret(created.key);
      return 'Key created. Copy it now: it is shown here once and never again.';
    });
  const models = (me.prices ?? []).map((entry) => entry.model);
  return (
    <Card title="Get started">
      <p>Call any model through one OpenAI- and Anthropic-compatible endpoint. Every call is billed from your wallet.</p>
      <div class="row">
        <span class="label-text">Base URL</span>
        <code class="wrap" data-testid="base-url">
          {baseUrl}
        </code>
        <CopyButton text={baseUrl} label="Copy base URL" />
      </div>
      <Outcome outcome={action.outcome} />
      {secret ? (
        <div class="row">
          <span class="label-text">Your new key</span>
          <code class="secret" data-testid="get-started-key">
            {secret}
          </code>
          <CopyButton text={secret} label="Copy key" />
        </div>
      ) : (
        <p>
          <button type="button" disabled={action.busy} onClick={create}>
            Create a key
          </button>{' '}
          <span class="muted">
            or use one from <a href="#/keys">API keys</a>.
          </span>
        </p>
      )}
      {models.length > 0 ? (
        <SelectField label="Model" value={model} onValue={setModel} options={models.map((id) => ({ value: id, label: id }))} />
      ) : null}
      <div class="segmented" role="group" aria-label="Client">
        {SNIPPETS.map((candidate) => (
          <button
            key={candidate.id}
            type="button"
            class={candidate.id === client ? undefined : 'secondary'}
            aria-pressed={candidate.id === client}
            onClick={() => setClient(candidate.id)}
          >
            {candidate.label}
          </button>
        ))}
      </div>
      <CodeBlock
        code={snippet.build({ baseUrl, key: secret ?? KEY_PLACEHOLDER, model })}
        label={`${snippet.label} example`}
        testId="snippet"
      />
      {me.wallet.available.micros <= 0 ? (
        <Notice kind="info">
          Your wallet is empty ({usd(me.wallet.available.micros)} available): calls are refused until credit arrives.{' '}
          <a href="#/money">How to add credit</a>.
        </Notice>
      ) : null}
      <p class="muted">
        Each call shows on <a href="#/activity">Activity</a> with its cost. The full reference is at <a href="/docs">/docs</a>.
      </p>
    </Card>
  );
}
