/**
 * Every field a real client sends reaches the upstream, or is named in `x-switchyard-dropped-fields`. Each client of
 * the suite (openai SDK chat and Responses, @anthropic-ai/sdk, the Vercel AI SDK's OpenAI and Anthropic providers,
 * LangChain's ChatOpenAI and ChatAnthropic) makes a real call with a rich request through its own `fetch` option,
 * which records the exact body it sent; the scripted upstream records what it received. A call to an upstream of the
 * caller's own protocol must carry every field as sent (only `model` rewritten); a translated one must carry each
 * field under the name the field-fate table gives it, or name it in the header. Cache marks are counted message by
 * message. The recorded client bodies are kept in test/fixtures/clients/, so a client that starts sending something
 * new shows up as a diff.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_FATES, type InboundName, type TranslatedKind } from '../../src/gateway/normalized/field-fates.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());

interface Exchange {
  path: string;
  body: Record<string, unknown>;
  droppedFields: string[];
}

/** A `fetch` for a client's options that records each JSON body it sends and the dropped-fields header it gets back. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const response = await fetch(input, init);
    if (typeof init?.body === 'string') {
      const header = response.headers.get('x-switchyard-dropped-fields');
      exchanges.push({
        path: new URL(url).pathname,
        body: JSON.parse(init.body) as Record<string, unknown>,
        droppedFields: header ? header.split(', ') : [],
      });
    }
    return response;
  };
}

type Kind = 'openai' | 'anthropic';
const MODEL_OF: Record<Kind, string> = { openai: MODELS.openai, anthropic: MODELS.anthropic };
const KIND_OF: Record<Kind, TranslatedKind> = { openai: 'openai-chat', anthropic: 'anthropic' };
const PROTOCOL_OF_PATH: Record<string, InboundName> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
};
/** The inbound protocol each destination kind takes as sent. */
const NATIVE: Record<Kind, InboundName> = { openai: 'chat', anthropic: 'messages' };

const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

interface ClientCase {
  client: string;
  call(model: string, fetch: typeof globalThis.fetch): Promise<unknown>;
}

const CLIENTS: ClientCase[] = [
  {
    client: 'openai SDK chat.completions',
    async call(model, fetch) {
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch, maxRetries: 0 });
      const stream = await openai.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather in Rome?' }] },
        ],
        tools: [{ type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: WEATHER_SCHEMA } }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: ANSWER_SCHEMA, strict: true } },
        seed: 7,
        user: 'end-user-1',
        safety_identifier: 'end-user-1',
        prompt_cache_key: 'thread-1',
        logit_bias: { '50256': -100 },
        logprobs: true,
        top_logprobs: 2,
        n: 1,
        frequency_penalty: 0.1,
        presence_penalty: 0.2,
        temperature: 0.5,
        top_p: 0.9,
        max_completion_tokens: 400,
        stop: ['END'],
        service_tier: 'auto',
        metadata: { tag: 'field-arrival' },
        store: false,
        verbosity: 'low',
        reasoning_effort: 'low',
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) void chunk;
    },
  },
  {
    client: 'openai SDK responses',
    async call(model, fetch) {
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch, maxRetries: 0 });
      await openai.responses.create({
        model,
        instructions: 'You are terse.',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Rome?' }] }],
        tools: [{ type: 'function', name: 'weather', description: 'Weather by city', parameters: WEATHER_SCHEMA, strict: true }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        text: { format: { type: 'json_schema', name: 'answer', schema: ANSWER_SCHEMA, strict: true }, verbosity: 'low' },
        reasoning: { effort: 'low' },
        max_output_tokens: 4_000,
        temperature: 0.5,
        top_p: 0.9,
        top_logprobs: 2,
        user: 'end-user-1',
        safety_identifier: 'end-user-1',
        prompt_cache_key: 'thread-1',
        service_tier: 'auto',
        metadata: { tag: 'field-arrival' },
        store: false,
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
      });
    },
  },
  {
    client: '@anthropic-ai/sdk messages',
    async call(model, fetch) {
      const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, fetch, maxRetries: 0 });
      await anthropic.beta.messages.create({
        model,
        betas: ['interleaved-thinking-2025-05-14'],
        max_tokens: 4_000,
        system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Rome?', cache_control: { type: 'ephemeral' } }] }],
        tools: [{ name: 'weather', description: 'Weather by city', input_schema: WEATHER_SCHEMA }],
        tool_choice: { type: 'auto' },
        thinking: { type: 'enabled', budget_tokens: 2_000 },
        metadata: { user_id: 'end-user-1' },
        stop_sequences: ['END'],
        top_k: 5,
      });
    },
  },
  {
    client: 'AI SDK @ai-sdk/openai chat',
    async call(model, fetch) {
      const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch });
      await generateText({
        model: openai.chat(model),
        system: 'You are terse.',
        prompt: 'Weather in Rome?',
        tools: { weather: tool({ description: 'Weather by city', inputSchema: jsonSchema(WEATHER_SCHEMA) }) },
        maxOutputTokens: 400,
        temperature: 0.5,
        topP: 0.9,
        seed: 7,
        stopSequences: ['END'],
        frequencyPenalty: 0.1,
        presencePenalty: 0.2,
        maxRetries: 0,
        providerOptions: {
          openai: { user: 'end-user-1', logitBias: { '50256': -100 }, parallelToolCalls: false, promptCacheKey: 'thread-1' },
        },
      });
    },
  },
  {
    client: 'AI SDK @ai-sdk/openai responses',
    async call(model, fetch) {
      const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch });
      await generateText({
        model: openai.responses(model),
        system: 'You are terse.',
        prompt: 'Weather in Rome?',
        tools: { weather: tool({ description: 'Weather by city', inputSchema: jsonSchema(WEATHER_SCHEMA) }) },
        maxOutputTokens: 400,
        temperature: 0.5,
        topP: 0.9,
        maxRetries: 0,
        providerOptions: {
          openai: { user: 'end-user-1', parallelToolCalls: false, promptCacheKey: 'thread-1', textVerbosity: 'low', store: false },
        },
      });
    },
  },
  {
    client: 'AI SDK @ai-sdk/anthropic',
    async call(model, fetch) {
      const anthropic = createAnthropic({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch });
      await generateText({
        model: anthropic(model),
        messages: [
          { role: 'system', content: 'You are terse.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
          { role: 'user', content: 'Weather in Rome?', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
        ],
        tools: { weather: tool({ description: 'Weather by city', inputSchema: jsonSchema(WEATHER_SCHEMA) }) },
        maxOutputTokens: 4_000,
        topK: 5,
        stopSequences: ['END'],
        maxRetries: 0,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2_000 } } },
      });
    },
  },
  {
    client: 'LangChain ChatOpenAI',
    async call(model, fetch) {
      const chat = new ChatOpenAI({
        model,
        apiKey: gateway.key,
        configuration: { baseURL: `${gateway.url}/v1`, fetch },
        maxRetries: 0,
        temperature: 0.5,
        topP: 0.9,
        frequencyPenalty: 0.1,
        presencePenalty: 0.2,
        maxTokens: 400,
        stop: ['END'],
        logitBias: { '50256': -100 },
        user: 'end-user-1',
        modelKwargs: { seed: 7, prompt_cache_key: 'thread-1' },
      });
      await chat
        .bindTools([{ type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: WEATHER_SCHEMA } }])
        .invoke([
          ['system', 'You are terse.'],
          ['human', 'Weather in Rome?'],
        ]);
    },
  },
  {
    client: 'LangChain ChatAnthropic',
    async call(model, fetch) {
      const chat = new ChatAnthropic({
        model,
        apiKey: gateway.key,
        anthropicApiUrl: gateway.url,
        clientOptions: { fetch },
        maxRetries: 0,
        maxTokens: 400,
        temperature: 0.5,
        topK: 5,
        stopSequences: ['END'],
      });
      await chat.bindTools([{ name: 'weather', description: 'Weather by city', input_schema: WEATHER_SCHEMA }]).invoke([
        ['system', 'You are terse.'],
        ['human', 'Weather in Rome?'],
      ]);
    },
  },
];

function valueAt(body: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], body);
}

/** Cache marks anywhere in the conversation: system blocks, messages, their content parts, tools. */
function cacheMarks(body: Record<string, unknown>): number {
  let count = 0;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'cache_control' && inner) count += 1;
      else visit(inner);
    }
  };
  for (const field of ['system', 'messages', 'input', 'tools']) visit(body[field]);
  return count;
}

/** The table's fate of each top-level field, member by member for fields it lists by member (`text.format`). */
function fatesOf(protocol: InboundName, body: Record<string, unknown>, kind: TranslatedKind): { field: string; fate: unknown }[] {
  const table = new Map(FIELD_FATES[protocol].map((entry) => [entry.field, entry.fates[kind]]));
  const listed = (field: string): boolean => [...table.keys()].some((key) => key.startsWith(`${field}.`));
  return Object.entries(body).flatMap(([field, value]) =>
    listed(field) && value && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value).map((member) => ({ field: `${field}.${member}`, fate: table.get(`${field}.${member}`) }))
      : [{ field, fate: table.get(field) }],
  );
}

/** Served by the gateway on a same-protocol call (stored completions), not sent upstream. */
const SERVED_IN_PASSTHROUGH = new Set(['store']);

/** Each field the client sent that neither reaches the upstream (under its mapped name) nor is named as dropped. */
function lostFields(exchange: Exchange, received: Record<string, unknown>, kind: Kind): string[] {
  const protocol = PROTOCOL_OF_PATH[exchange.path]!;
  const named = new Set(exchange.droppedFields);
  const lost: string[] = [];
  if (protocol === NATIVE[kind]) {
    for (const [field, value] of Object.entries(exchange.body)) {
      if (field === 'model' || named.has(field) || SERVED_IN_PASSTHROUGH.has(field)) continue;
      if (JSON.stringify(received[field]) !== JSON.stringify(value)) lost.push(field);
    }
  } else {
    for (const { field, fate } of fatesOf(protocol, exchange.body, KIND_OF[kind])) {
      if (named.has(field) || fate === 'gateway') continue;
      if (typeof fate !== 'string' || valueAt(received, fate) === undefined) lost.push(field);
    }
  }
  if (cacheMarks(received) < cacheMarks(exchange.body) && !named.has('cache_control')) lost.push('cache_control');
  return lost;
}

const cases = CLIENTS.flatMap((client) => (['openai', 'anthropic'] as const).map((kind) => ({ ...client, kind })));

describe('every field a client sends arrives upstream or is named as dropped', () => {
  it.each(cases)('$client → $kind-kind model', async ({ client, kind, call }) => {
    gateway.upstream.requests.length = 0;
    const exchanges: Exchange[] = [];
    await call(MODEL_OF[kind], recordingFetch(exchanges));

    const sent = exchanges.filter((exchange) => exchange.path in PROTOCOL_OF_PATH);
    const received = gateway.upstream.requests.filter((request) => request.method === 'POST' && !request.path.includes('count_tokens'));
    expect(sent).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(kind === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
    expect(lostFields(sent[0]!, received[0]!.body, kind), JSON.stringify({ sent: sent[0], received: received[0]!.body })).toEqual([]);
    // Only fields the client really sent are named.
    for (const field of sent[0]!.droppedFields) expect(JSON.stringify(sent[0]!.body)).toContain(`"${field.split('.')[0]}"`);

    const fixture = { client, path: sent[0]!.path, body: { ...sent[0]!.body, model: '<model>' } };
    mkdirSync('test/fixtures/clients', { recursive: true });
    const name = client
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase();
    if (kind === 'anthropic') writeFileSync(`test/fixtures/clients/${name}.json`, `${JSON.stringify(fixture, null, 2)}\n`);
  });
});
