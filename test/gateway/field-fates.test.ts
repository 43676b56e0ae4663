/**
 * Generated from the field-fate table (src/gateway/normalized/field-fates.ts): for every inbound protocol, every
 * destination kind it is translated for and every field, a call carrying the field shows its fate on the scripted
 * upstream — the mapped field arrives, a dropped one is named in `x-switchyard-dropped-fields`, one the gateway
 * serves is neither. The table in docs/gateway.md is the same table, rendered.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIELD_FATES,
  TRANSLATED_FOR,
  renderFieldFates,
  type InboundName,
  type TranslatedKind,
} from '../../src/gateway/normalized/field-fates.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());

const MODEL_OF: Record<TranslatedKind, string> = { 'openai-chat': MODELS.openai, anthropic: MODELS.anthropic };
const PATH_OF: Record<InboundName, string> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
  completions: '/v1/completions',
};

/** The smallest valid body of each protocol, with one caller tool (tool options need one). */
function baseBody(protocol: InboundName, model: string): Record<string, unknown> {
  switch (protocol) {
    case 'chat':
      return {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'g', parameters: { type: 'object' } } }],
      };
    case 'responses':
      return { model, input: 'hi', tools: [{ type: 'function', name: 'g', parameters: { type: 'object' } }] };
    case 'messages':
      return {
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'g', input_schema: { type: 'object' } }],
      };
    case 'completions':
      return { model, prompt: 'Once' };
  }
}

function withField(body: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const [parent, member] = field.split('.');
  if (member === undefined) return { ...body, [field]: value };
  return { ...body, [parent!]: { ...(body[parent!] as object | undefined), [member]: value } };
}

function valueAt(body: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], body);
}

const cases = (Object.keys(FIELD_FATES) as InboundName[]).flatMap((protocol) =>
  TRANSLATED_FOR[protocol].flatMap((kind) =>
    FIELD_FATES[protocol]
      .filter((entry) => entry.sample !== null && !['model', 'messages', 'input', 'prompt'].includes(entry.field))
      .map((entry) => ({ protocol, kind, field: entry.field, sample: entry.sample, fate: entry.fates[kind] })),
  ),
);

describe('every field of every protocol, translated: mapped, served, or dropped and named', () => {
  it.each(cases)('$protocol → $kind: $field', async ({ protocol, kind, field, sample, fate }) => {
    gateway.upstream.requests.length = 0;
    const model = MODEL_OF[kind];
    const sampleValue = field === 'model' ? model : sample;
    const response = await fetch(`${gateway.url}${PATH_OF[protocol]}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(withField(baseBody(protocol, model), field, sampleValue)),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const named = (response.headers.get('x-switchyard-dropped-fields') ?? '').split(', ');
    const sent = gateway.upstream.requests.find((request) => request.method === 'POST')!;
    expect(sent.path).toBe(kind === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
    if (fate === null || fate === undefined) {
      expect(named).toContain(field);
      return;
    }
    expect(named).not.toContain(field);
    if (fate !== 'gateway') expect(valueAt(sent.body, fate), `${fate} in ${JSON.stringify(sent.body)}`).toBeDefined();
  });

  it('a field no table lists is named too, never silently dropped', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...baseBody('chat', MODELS.anthropic), brand_new_option: 1 }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-dropped-fields')).toBe('brand_new_option');
  });
});

describe('docs/gateway.md', () => {
  it('shows the field-fate table as the code has it', () => {
    const doc = readFileSync('docs/gateway.md', 'utf8');
    const begin = doc.indexOf('<!-- field-fates:begin -->');
    const end = doc.indexOf('<!-- field-fates:end -->');
    expect(begin).toBeGreaterThan(0);
    expect(doc.slice(begin + '<!-- field-fates:begin -->'.length, end).trim()).toBe(renderFieldFates().trim());
  });
});
