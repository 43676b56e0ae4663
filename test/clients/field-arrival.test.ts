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
import { Agent, OpenAIProvider, Runner, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lostFields, recordingFetch, type Exchange, PROTOCOL_OF_PATH } from './field-check.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());

const MODEL_OF: Record<'openai' | 'anthropic', string> = { openai: MODELS.openai, anthropic: MODELS.anthropic };

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
    client: 'OpenAI Agents SDK',
    async call(model, fetch) {
      const openAIClient = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, fetch, maxRetries: 0 });
      const weather = agentTool({
        name: 'weather',
        description: 'Weather by city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `Sunny in ${city}`,
      });
      const agent = new Agent({
        name: 'Assistant',
        instructions: 'You are terse.',
        model,
        tools: [weather],
        modelSettings: { temperature: 0.5, topP: 0.9, maxTokens: 4_000, parallelToolCalls: false, toolChoice: 'auto' },
      });
      const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: openAIClient as never }), tracingDisabled: true });
      await runner.run(agent, 'Weather in Rome?');
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
