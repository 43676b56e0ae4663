/**
 * A newcomer's config: a file naming only providers and models keeps the built-in rate cards, regions and releases;
 * a provider whose key resolved empty is named in one start-up warning and its models answer 503 saying so; the
 * README's local-model example loads and serves a chat call.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfigFile } from '../../src/config/default-config.js';
import { loadConfig, parseConfigFile, withBuiltInSections } from '../../src/config/load-config.js';
import { startModelUpstream } from '../fakes/model-upstream.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

const LOCAL_EXAMPLE = JSON.parse(readFileSync(new URL('../../config/examples/local-model.json', import.meta.url), 'utf8'));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

function configFile(content: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'switchyard-config-')), 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('config sections merge over the built-in ones', () => {
  it('a file with only providers and models keeps the built-in rate cards and releases, and this service as its region', () => {
    const config = loadConfig({
      SWITCHYARD_CONFIG: configFile(LOCAL_EXAMPLE),
      SWITCHYARD_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'switchyard-data-')),
      SWITCHYARD_SECRET: 'x'.repeat(40),
    });
    expect(Object.keys(config.rateCards)).toEqual(Object.keys(defaultConfigFile.rateCards));
    // No regions configured: the one region is this service itself (no demo hosts to probe).
    expect(config.regions).toEqual([
      { id: 'local', name: 'This service', apiBaseUrl: 'http://127.0.0.1:8080', healthUrl: 'http://127.0.0.1:8080/healthz' },
    ]);
    expect(config.releases.cli.version).toBe(defaultConfigFile.releases.cli.version);
    expect(config.models.map((model) => model.id)).toEqual(['local-llama']);
    expect(config.models[0]!.rateCard).toBe('standard');
    expect(config.aliases).toEqual({ 'power-ai': 'local-llama' });
  });

  it('a section given explicitly replaces the built-in one; built-in aliases leave with built-in models', () => {
    const merged = withBuiltInSections({
      ...LOCAL_EXAMPLE,
      aliases: undefined,
      rateCards: { cheap: { inputMicrosPerMillion: 1, outputMicrosPerMillion: 2 } },
    }) as Record<string, unknown>;
    const { aliases: _aliases, ...withoutAliases } = merged;
    const config = parseConfigFile({ ...withoutAliases, models: [{ ...LOCAL_EXAMPLE.models[0], rateCard: 'cheap' }] }, {});
    expect(Object.keys(config.rateCards)).toEqual(['cheap']);
    expect(config.aliases).toEqual({});
    const noModels = withBuiltInSections({ providers: LOCAL_EXAMPLE.providers }) as Record<string, unknown>;
    expect(noModels.models).toBeUndefined();
    expect(noModels.rateCards).toEqual(defaultConfigFile.rateCards);
  });

  it('names the variable of an empty key', () => {
    const config = loadConfig({
      SWITCHYARD_CONFIG: configFile({
        providers: [{ id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: '${UNSET_KEY_FOR_TEST:-}' }],
        models: [],
      }),
      SWITCHYARD_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'switchyard-data-')),
      SWITCHYARD_SECRET: 'x'.repeat(40),
    });
    expect(config.providers[0]!.apiKey).toBe('');
    expect(config.keyVariables).toEqual({ openai: 'UNSET_KEY_FOR_TEST' });
  });
});

describe('a provider without a key', () => {
  it('is named in one warning line at start, and its models answer 503 saying it has no key', async () => {
    const context: TestContext = await createTestContext({
      config: {
        providers: [{ id: 'keyless', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: '' }],
        models: [{ id: 'keyless-model', provider: 'keyless', upstreamModel: 'x' }],
        billing: { enabled: false },
      },
    });
    closers.push(() => context.close());
    const url = await context.listen();
    const warnings = context.logs.filter((line) => line.includes('providers without an API key'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('keyless (set its apiKey)');
    const customer = await context.services.customers.create({ email: `keyless-${Date.now()}@example.com` });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: customer.systemToken.key, maxRetries: 0 });
    const failure = await client.chat.completions
      .create({ model: 'keyless-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 503 });
    expect((failure as Error).message).toContain('The provider keyless has no API key configured');
  });
});

describe('the README local-model example', () => {
  it('loads and serves a chat call through an OpenAI-compatible local server', async () => {
    const upstream = await startModelUpstream({ defaultReply: { kind: 'text', text: 'Hello from the local model.' } });
    closers.push(() => upstream.close());
    const raw = withBuiltInSections(
      JSON.parse(JSON.stringify(LOCAL_EXAMPLE).replace('${LOCAL_MODEL_BASE_URL:-http://127.0.0.1:11434/v1}', `${upstream.url}/v1`)),
    ) as Record<string, unknown>;
    const context = await createTestContext({ config: { ...raw, billing: { enabled: false } } });
    closers.push(() => context.close());
    const url = await context.listen();
    expect(context.logs.some((line) => line.includes('providers without an API key'))).toBe(false);
    const customer = await context.services.customers.create({ email: `local-${Date.now()}@example.com` });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: customer.systemToken.key, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'power-ai', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from the local model.');
    expect(upstream.requests[0]!.body.model).toBe('llama3.2');
    expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
  });
});
