/**
 * What `/docs` says beyond the route schemas: the landing text at the top of the page (how to authenticate, the
 * base URL, a first call from each client, an agent turn followed over SSE to its approval), and, for the routes
 * users call first, answer schemas with real examples and request bodies whose "Try it out" works as filled in (a
 * model this service serves, a sensible `max_tokens`). They are documentation only: the swagger `transform` adds
 * them to the OpenAPI document, so no route's validation or serialization changes.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { AppConfig } from '../config/load-config.js';

type Json = Record<string, unknown>;

/** The model a working example names: the `power-ai` alias when configured, else the first model. */
export function exampleModel(config: Pick<AppConfig, 'aliases' | 'models' | 'agent'>): string {
  if (config.aliases['power-ai'] !== undefined) return 'power-ai';
  return config.models[0]?.id ?? config.agent.defaultModel;
}

export function docsLanding(config: Pick<AppConfig, 'publicBaseUrl' | 'aliases' | 'models' | 'agent'>): string {
  const base = config.publicBaseUrl;
  const model = exampleModel(config);
  return `Codex app-server HTTP API, model-API gateway and prepaid wallet.

## Authentication
Every call sends a key as \`Authorization: Bearer <key>\` (the Anthropic routes also accept \`x-api-key\`). Create one in the
dashboard (${base}/dashboard.html, **API keys** or Home's **Get started**) or with \`POST /api/v1/me/api-keys\`.
Calls are paid from the prepaid wallet: an empty wallet answers **402** with \`billing_url\`, the page where credit is added.
Operators send the operator token; signed in to the console they read this reference with the operator routes at
[/api/admin/docs](/api/admin/docs).

## Base URLs
- Model API (OpenAI and Anthropic compatible): \`${base}/v1\`
- Service API (account, wallet, projects): \`${base}/api/v1\`

## A first call
\`\`\`sh
curl ${base}/v1/chat/completions -H "Authorization: Bearer $SWITCHYARD_API_KEY" -H "Content-Type: application/json" \\
  -d '{"model":"${model}","messages":[{"role":"user","content":"Say hello"}],"max_tokens":100}'
\`\`\`
\`\`\`python
import os
from openai import OpenAI
client = OpenAI(base_url="${base}/v1", api_key=os.environ["SWITCHYARD_API_KEY"])
print(client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "Say hello"}]).choices[0].message.content)
\`\`\`
\`\`\`ts
import OpenAI from 'openai';
const client = new OpenAI({ baseURL: '${base}/v1', apiKey: process.env.SWITCHYARD_API_KEY });
const reply = await client.responses.create({ model: '${model}', input: 'Say hello' });
\`\`\`
\`\`\`ts
import Anthropic from '@anthropic-ai/sdk';
const client = new Anthropic({ baseURL: '${base}', apiKey: process.env.SWITCHYARD_API_KEY });
const message = await client.messages.create({ model: '${model}', max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] });
\`\`\`
- **Codex CLI** (\`~/.codex/config.toml\`): \`model_provider = "switchyard"\` with \`[model_providers.switchyard]\`
  \`base_url = "${base}/v1"\`, \`env_key = "SWITCHYARD_API_KEY"\`, \`wire_api = "responses"\`.
- **Claude Code**: \`ANTHROPIC_BASE_URL=${base}\`, \`ANTHROPIC_API_KEY=<key>\`, \`ANTHROPIC_MODEL=${model}\`.

## An agent turn, followed live
1. \`POST /api/v1/projects\` \`{"name":"demo"}\` → \`{id}\`: a project with its own workspace.
2. \`POST /api/v1/projects/{id}/turns\` \`{"prompt":"Add a README","approvalPolicy":"untrusted"}\` with an \`Idempotency-Key\` → 202.
3. \`GET /api/v1/projects/{id}/events?after=0\` (\`text/event-stream\`): every item of the turn as it happens; reconnect with
   \`Last-Event-ID\` to miss nothing. An \`approval/requested\` event means the agent waits for you.
4. \`GET /api/v1/projects/{id}/approvals\` lists what waits; \`POST /api/v1/projects/{id}/approvals/{approval_id}/resolve\`
   \`{"decision":"accept"}\` (or \`acceptForSession\`, \`decline\`) lets it go on. The turn ends with a \`turn/completed\` event.
5. What it cost: \`GET /api/v1/activity\` (each billed call and agent turn).`;
}

const Loose = (properties: Record<string, TSchema>, example: Json, description?: string) =>
  Type.Object(properties, { additionalProperties: true, examples: [example], ...(description ? { description } : {}) });
const Money = (micros: number) => ({ micros, usd: (micros / 1_000_000).toFixed(6) });

interface RouteDoc {
  body?: Json;
  response: Record<number, TSchema>;
}

function gatewayDocs(model: string): Record<string, RouteDoc> {
  const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };
  return {
    'POST /v1/chat/completions': {
      body: { model, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 256 },
      response: {
        200: Loose(
          {
            id: Type.String(),
            object: Type.Literal('chat.completion'),
            model: Type.String(),
            choices: Type.Array(Type.Unknown()),
            usage: Type.Unknown(),
          },
          {
            id: 'chatcmpl-9f2c4e0a1b7d',
            object: 'chat.completion',
            created: 1764235200,
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
            usage,
          },
          'With `stream: true`: server-sent `chat.completion.chunk` events ending with `data: [DONE]`.',
        ),
      },
    },
    'POST /v1/responses': {
      body: { model, input: 'Say hello', max_output_tokens: 256 },
      response: {
        200: Loose(
          { id: Type.String(), object: Type.Literal('response'), status: Type.String(), output: Type.Array(Type.Unknown()) },
          {
            id: 'resp_6a1f0c2d9e8b',
            object: 'response',
            created_at: 1764235200,
            status: 'completed',
            model,
            output: [
              {
                type: 'message',
                id: 'msg_2b7e1d',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
              },
            ],
            usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 },
          },
        ),
      },
    },
    'POST /v1/messages': {
      body: { model, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] },
      response: {
        200: Loose(
          { id: Type.String(), type: Type.Literal('message'), role: Type.Literal('assistant'), content: Type.Array(Type.Unknown()) },
          {
            id: 'msg_01XyZ4a7Q2',
            type: 'message',
            role: 'assistant',
            model,
            content: [{ type: 'text', text: 'Hello!' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 9, output_tokens: 3 },
          },
        ),
      },
    },
  };
}

/** `/v1/models` as this service answers it, for the configured models and aliases (prices left out). */
function modelsDoc(config: Pick<AppConfig, 'aliases' | 'models'>): RouteDoc {
  const entries = [
    ...Object.keys(config.aliases).map((id) => ({ id, alias: true })),
    ...config.models.map((model) => ({ id: model.id, alias: false })),
  ].slice(0, 3);
  const data = entries.map(({ id, alias }) => ({
    id,
    object: 'model',
    created: 1764201600,
    owned_by: 'switchyard',
    display_name: id,
    type: 'model',
    created_at: '2026-11-27T00:00:00Z',
    alias,
  }));
  return {
    response: {
      200: Loose(
        { object: Type.Literal('list'), data: Type.Array(Type.Unknown()) },
        { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
        'Each entry also carries its capabilities and prices.',
      ),
    },
  };
}

function accountDocs(): Record<string, RouteDoc> {
  const key = {
    id: 12,
    kind: 'user_api_key',
    system: false,
    name: 'laptop',
    prefix: 'sy_live_',
    last_four: 'x9Qa',
    policy: { allowed_surfaces: null, allowed_models: null, spending_limit_micros: null, spending_period: null, rate_limit_plan: null },
    created_at: '2026-11-27T10:00:00.000Z',
    expires_at: null,
    last_used_at: null,
  };
  return {
    'GET /api/v1/wallet/status': {
      response: {
        200: Loose(
          { balance: Type.Unknown(), holds: Type.Unknown(), available: Type.Unknown(), currency: Type.Literal('USD') },
          {
            balance: Money(4_993_280),
            holds: Money(0),
            available: Money(4_993_280),
            cash_balance: Money(0),
            plan: null,
            plan_ends_at: null,
            currency: 'USD',
          },
          'Money is integer micro-USD with its exact decimal text.',
        ),
      },
    },
    'POST /api/v1/me/api-keys': {
      body: { name: 'laptop' },
      response: { 201: Loose({ id: Type.Integer(), key: Type.String() }, { ...key, key: 'sy_live_…the secret, shown once…' }) },
    },
    'GET /api/v1/me/api-keys': { response: { 200: Loose({ data: Type.Array(Type.Unknown()) }, { data: [key] }) } },
    'POST /api/v1/projects': { body: { name: 'demo' }, response: {} },
    'GET /api/v1/projects': { response: {} },
    'POST /api/v1/projects/:projectId/turns': {
      body: { prompt: 'Add a README that explains the project', approvalPolicy: 'untrusted' },
      response: {
        202: Loose(
          { turn_id: Type.String(), thread_id: Type.String() },
          { turn_id: '0199d5a2-7c1e-7f43-9a5b-2d8e61f0c4aa', thread_id: '0199d5a1-02b4-7d10-8e2f-5c3b9a7d1e60', status: 'inProgress' },
          'Follow the turn on GET /api/v1/projects/{projectId}/events.',
        ),
      },
    },
  };
}

/** The documentation of one route (`METHOD /url`), if it has more than its schema says. */
export function routeDocs(config: Pick<AppConfig, 'aliases' | 'models' | 'agent'>): Record<string, RouteDoc> {
  return { ...gatewayDocs(exampleModel(config)), 'GET /v1/models': modelsDoc(config), ...accountDocs() };
}

/** The swagger `transform`: the route's own schema plus its examples and answers, for the document only. */
/** The documented answers: a route's declared schema stays (it is what answers are checked against), with the example added. */
function withExamples(declared: Record<string, Json> | undefined, documented: Record<number, TSchema>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...declared };
  for (const [status, doc] of Object.entries(documented)) {
    const own = declared?.[status];
    merged[status] = own ? { ...own, ...(doc.examples === undefined ? {} : { examples: doc.examples }) } : doc;
  }
  return merged;
}

export function referenceTransform(config: Pick<AppConfig, 'aliases' | 'models' | 'agent'>) {
  const docs = routeDocs(config);
  return ({ schema: given, url, route }: { schema: object | undefined; url: string; route: { method: string | string[] } }) => {
    const schema = given as Json | undefined;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const doc = methods.map((method) => docs[`${method} ${url}`]).find((found) => found !== undefined);
    if (!doc || !schema) return { schema: given as never, url };
    const body = schema.body as Json | undefined;
    return {
      schema: {
        ...schema,
        ...(doc.body && body ? { body: { ...body, examples: [doc.body] } } : {}),
        response: withExamples(schema.response as Record<string, Json> | undefined, doc.response),
      } as never,
      url,
    };
  };
}
