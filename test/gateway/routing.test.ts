/** Models, aliases and the runtime switch of power-ai, seen in what the upstream receives. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderAdapter } from '../../src/gateway/providers/index.js';
import { AliasStore } from '../../src/gateway/routing/alias-store.js';
import { ModelCatalog } from '../../src/gateway/routing/model-catalog.js';
import { ModelRouter } from '../../src/gateway/routing/router.js';
import { bearer, operatorHeaders } from '../helpers/context.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

let gateway: GatewayTestContext;

beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());

describe('model listing', () => {
  it('lists models and aliases, power-ai among them, with capabilities and rate-card prices', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['power-ai', MODELS.openai, MODELS.anthropic, 'vendor/slashed-model']));

    const alias = await client.models.retrieve('power-ai');
    expect(alias).toMatchObject({
      id: 'power-ai',
      object: 'model',
      alias: true,
      pricing: { rate_card: 'standard', input_micros_per_million: 4_000_000, output_usd_per_million: '24.000000' },
    });
    const claude = await client.models.retrieve(MODELS.anthropic);
    expect(claude).toMatchObject({
      capabilities: { images: true, tools: true },
      pricing: { rate_card: 'heavy-load', input_micros_per_million: 6_000_000 },
    });
  });

  it('lists models to the Anthropic client too (x-api-key, its list shape)', async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('power-ai');
    expect((await client.models.retrieve(MODELS.anthropic)).type).toBe('model');
  });

  it('serves model ids that contain slashes and 404s unknown ones', async () => {
    const slashed = await gateway.context.app.inject({
      method: 'GET',
      url: '/v1/models/vendor/slashed-model',
      headers: bearer(gateway.key),
    });
    expect(slashed.statusCode).toBe(200);
    expect(slashed.json().id).toBe('vendor/slashed-model');
    const missing = await gateway.context.app.inject({ method: 'GET', url: '/v1/models/vendor/nothing', headers: bearer(gateway.key) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.type).toBe('invalid_request_error');
  });

  it('refuses a call to an unknown model with 404 and never calls an upstream', async () => {
    const before = gateway.upstream.requests.length;
    const response = await gateway.context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(gateway.key),
      payload: { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toContain('no-such-model');
    expect(gateway.upstream.requests.length).toBe(before);
  });
});

describe('power-ai alias switching', () => {
  const ask = () =>
    gateway.context.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(gateway.key),
      payload: { model: 'power-ai', messages: [{ role: 'user', content: 'hi' }] },
    });

  it('switches the destination at runtime; the alias id stays the same and the upstream sees the new model', async () => {
    const first = await ask();
    expect(first.json().model).toBe('power-ai');
    expect(gateway.upstream.requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', body: { model: 'upstream-gpt' } });

    const switched = await gateway.context.app.inject({
      method: 'PUT',
      url: '/api/admin/aliases/power-ai',
      headers: operatorHeaders,
      payload: { model: MODELS.anthropic },
    });
    expect(switched.statusCode).toBe(200);
    expect(switched.json()).toMatchObject({ alias: 'power-ai', model: MODELS.anthropic });

    const second = await ask();
    expect(second.statusCode).toBe(200);
    expect(second.json().model).toBe('power-ai');
    expect(gateway.upstream.requests.at(-1)).toMatchObject({ path: '/v1/messages', body: { model: 'upstream-claude' } });

    // The switch is stored: a router started fresh on the same database resolves the alias the new way.
    const { config, storage, logger, clock } = gateway.context.services;
    const fresh = new ModelRouter(new ModelCatalog(config), new AliasStore(storage, clock), logger, createProviderAdapter);
    await fresh.start();
    expect(fresh.resolve('power-ai')?.model.id).toBe(MODELS.anthropic);
    await fresh.close();

    await gateway.context.app.inject({
      method: 'PUT',
      url: '/api/admin/aliases/power-ai',
      headers: operatorHeaders,
      payload: { model: MODELS.openai },
    });
  });

  it('404s an unknown alias or model and changes nothing; customers cannot switch', async () => {
    const unknownAlias = await gateway.context.app.inject({
      method: 'PUT',
      url: '/api/admin/aliases/not-an-alias',
      headers: operatorHeaders,
      payload: { model: MODELS.openai },
    });
    expect(unknownAlias.statusCode).toBe(404);
    const unknownModel = await gateway.context.app.inject({
      method: 'PUT',
      url: '/api/admin/aliases/power-ai',
      headers: operatorHeaders,
      payload: { model: 'nope' },
    });
    expect(unknownModel.statusCode).toBe(404);
    const byCustomer = await gateway.context.app.inject({
      method: 'PUT',
      url: '/api/admin/aliases/power-ai',
      headers: bearer(gateway.key),
      payload: { model: MODELS.anthropic },
    });
    expect(byCustomer.statusCode).toBe(404);
    expect(gateway.context.services.gateway.router.resolve('power-ai')?.model.id).toBe(MODELS.openai);
  });

  it('applies a switch to a request admitted before it, because the alias is resolved at the upstream call', async () => {
    const services = gateway.context.services;
    const meter = services.gateway.executeDeps.meter;
    let releaseAdmission: () => void = () => undefined;
    const admitted = new Promise<void>((resolve) => (releaseAdmission = resolve));
    // Hold the request at billing admission (where real requests queue), switch, then let it go.
    services.gateway.executeDeps.meter = {
      async begin(request) {
        await admitted;
        return meter.begin(request);
      },
    };
    try {
      const pending = ask();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await services.gateway.router.setAlias('power-ai', MODELS.anthropic);
      releaseAdmission();
      expect((await pending).statusCode).toBe(200);
      expect(gateway.upstream.requests.at(-1)).toMatchObject({ path: '/v1/messages', body: { model: 'upstream-claude' } });
    } finally {
      services.gateway.executeDeps.meter = meter;
      await services.gateway.router.setAlias('power-ai', MODELS.openai);
    }
  });
});
