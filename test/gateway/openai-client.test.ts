/** The official `openai` client against the gateway, routed to an OpenAI-kind and to an Anthropic-kind upstream. */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

let gateway: GatewayTestContext;
let client: OpenAI;

beforeAll(async () => {
  gateway = await createGatewayContext();
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

describe.each([
  { kind: 'openai', model: MODELS.openai, path: '/v1/chat/completions', upstreamModel: 'upstream-gpt' },
  { kind: 'anthropic', model: MODELS.anthropic, path: '/v1/messages', upstreamModel: 'upstream-claude' },
])('chat completions → $kind upstream', ({ kind, model, path, upstreamModel }) => {
  it('creates a completion with an image and tools, and returns the tool call', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'get_weather', arguments: '{"city":"Oslo"}', callId: 'call_w1' });
    const completion = await client.chat.completions.create({
      model,
      max_tokens: 300,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the picture, and the weather?' },
            { type: 'image_url', image_url: { url: PIXEL } },
          ],
        },
      ],
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(completion.model).toBe(model);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: 'call_w1', type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({ city: 'Oslo' });
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);

    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe(path);
    expect(sent!.body.model).toBe(upstreamModel);
    if (kind === 'openai') {
      expect(sent!.headers.authorization).toBe('Bearer sk-upstream-openai');
      expect(sent!.body.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the picture, and the weather?' },
            { type: 'image_url', image_url: { url: PIXEL } },
          ],
        },
      ]);
      expect(sent!.body.tools).toEqual([WEATHER_TOOL]);
      expect(sent!.body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
      // The caller's body as sent: its own max_tokens, not a translation of it.
      expect(sent!.body.max_tokens).toBe(300);
    } else {
      expect(sent!.headers['x-api-key']).toBe('sk-upstream-anthropic');
      expect(sent!.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent!.body.system).toBe('Be brief.');
      expect(sent!.body.max_tokens).toBe(300);
      expect(sent!.body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the picture, and the weather?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL.split(',')[1] } },
          ],
        },
      ]);
      expect(sent!.body.tools).toEqual([
        { name: 'get_weather', description: 'Weather for a city', input_schema: WEATHER_TOOL.function.parameters },
      ]);
      expect(sent!.body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    }
  });

  it('sends the tool result back in the upstream format and streams the answer with usage', async () => {
    gateway.upstream.enqueue({ kind: 'text', text: 'It is sunny in Oslo today.', usage: { inputTokens: 42, outputTokens: 7 } });
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_w1', content: 'sunny, 21C' },
      ],
    });
    let text = '';
    let deltas = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) {
        text += choice.delta.content;
        deltas += 1;
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('It is sunny in Oslo today.');
    expect(deltas).toBeGreaterThan(1);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 });

    const [sent] = gateway.upstream.requests;
    expect(sent!.body.stream).toBe(true);
    if (kind === 'openai') {
      expect(sent!.body.stream_options).toEqual({ include_usage: true });
      expect(sent!.body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_w1', content: 'sunny, 21C' },
      ]);
    } else {
      expect(sent!.body.messages.slice(1)).toEqual([
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_w1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_w1', content: 'sunny, 21C' }] },
      ]);
    }
  });
});

describe.each([
  { kind: 'openai (chat-only)', model: MODELS.openai, path: '/v1/chat/completions' },
  { kind: 'openai (native responses)', model: MODELS.native, path: '/v1/responses' },
  { kind: 'anthropic', model: MODELS.anthropic, path: '/v1/messages' },
])('responses → $kind upstream', ({ model, path }) => {
  it('creates a response with output_text and usage', async () => {
    const response = await client.responses.create({ model, input: 'Say hello', instructions: 'Be kind.', max_output_tokens: 64 });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.model).toBe(model);
    expect(response.output_text).toBe('Hello from the scripted model.');
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    const [sent] = gateway.upstream.requests;
    expect(sent!.path).toBe(path);
    if (path === '/v1/responses')
      expect(sent!.body).toEqual({
        model: 'upstream-gpt-native',
        input: 'Say hello',
        instructions: 'Be kind.',
        max_output_tokens: 64,
        stream: false,
      });
  });

  it('streams a function call and a custom apply_patch call back as Responses events', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'exec_command', arguments: '{"cmd":"ls"}', callId: 'call_e1' });
    gateway.upstream.enqueue({
      kind: path === '/v1/responses' ? 'custom_tool_call' : 'tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** End Patch\n',
      arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch\n' }),
      callId: 'call_p1',
    } as never);
    const tools = [
      {
        type: 'function' as const,
        name: 'exec_command',
        description: 'Run a command',
        parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
        strict: false,
      },
      {
        type: 'custom' as const,
        name: 'apply_patch',
        description: 'Edit files',
        format: { type: 'grammar' as const, syntax: 'lark' as const, definition: 'start: "x"' },
      },
    ];
    const events: string[] = [];
    const first = await client.responses.create({
      model,
      input: 'list files',
      tools,
      stream: true,
      store: false,
      reasoning: { effort: 'high' },
    });
    let functionCall: OpenAI.Responses.ResponseFunctionToolCall | undefined;
    for await (const event of first) {
      events.push(event.type);
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call') functionCall = event.item;
    }
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect(functionCall).toMatchObject({ call_id: 'call_e1', name: 'exec_command', arguments: '{"cmd":"ls"}' });

    const second = await client.responses.create({
      model,
      tools,
      stream: true,
      input: [
        { role: 'user', content: 'list files' },
        { type: 'function_call', call_id: 'call_e1', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'call_e1', output: 'a.txt' },
      ],
    });
    let patch: OpenAI.Responses.ResponseCustomToolCall | undefined;
    for await (const event of second) {
      if (event.type === 'response.output_item.done' && event.item.type === 'custom_tool_call') patch = event.item;
    }
    expect(patch).toMatchObject({ call_id: 'call_p1', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' });

    const sent = gateway.upstream.requests[1]!;
    if (path === '/v1/responses') {
      // Native destination: the caller's body, untouched apart from the model.
      expect(sent.body.model).toBe('upstream-gpt-native');
      expect(sent.body.tools).toEqual(tools);
      expect(sent.body.input[2]).toEqual({ type: 'function_call_output', call_id: 'call_e1', output: 'a.txt' });
    } else if (path === '/v1/chat/completions') {
      expect(sent.body.tools[1].function.name).toBe('apply_patch');
      expect(sent.body.tools[1].function.parameters.required).toEqual(['input']);
      expect(sent.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_e1', content: 'a.txt' });
      expect(gateway.upstream.requests[0]!.body.reasoning_effort).toBe('high');
    } else {
      expect(sent.body.tools[1]).toMatchObject({ name: 'apply_patch', input_schema: { required: ['input'] } });
      expect(sent.body.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_e1', content: 'a.txt' }],
      });
    }
  });
});

describe('structured output', () => {
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };

  it('passes response_format and Responses text.format on to a chat upstream', async () => {
    await client.chat.completions.create({
      model: MODELS.openai,
      messages: [{ role: 'user', content: 'json please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
    });
    expect(gateway.upstream.requests[0]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'reply', schema, strict: true },
    });
    await client.responses.create({
      model: MODELS.openai,
      input: 'json please',
      text: { format: { type: 'json_schema', name: 'reply', schema, strict: true } },
    });
    expect(gateway.upstream.requests[1]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'reply', schema, strict: true },
    });
  });

  it('emulates structured output with a forced tool on a destination without it, the answer in the content', async () => {
    gateway.upstream.enqueue({ kind: 'tool_call', name: 'structured_output', arguments: '{"ok":true}', callId: 'toolu_json' });
    const completion = await client.chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'json please' }],
      response_format: { type: 'json_object' },
    });
    expect(completion.choices[0]!.message.content).toBe('{"ok":true}');
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(gateway.upstream.requests[0]!.body.tool_choice).toEqual({ type: 'tool', name: 'structured_output' });
  });
});
