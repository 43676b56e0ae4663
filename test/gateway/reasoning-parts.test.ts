/** Thinking from an Anthropic-kind model reaches Responses and chat callers as reasoning, whole and streamed. */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

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

const THINKING_MESSAGE = {
  id: 'msg_t',
  type: 'message',
  role: 'assistant',
  model: 'upstream-claude',
  content: [
    { type: 'thinking', thinking: 'Herons wade.', signature: 'sig' },
    { type: 'text', text: 'heron' },
  ],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 4 },
};

function thinkingStream(): string {
  const events = [
    {
      type: 'message_start',
      message: { ...THINKING_MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Herons wade.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'heron' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } },
    { type: 'message_stop' },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

describe('reasoning parts', () => {
  it('Responses: a reasoning item with the thinking as its summary, before the message', async () => {
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'application/json', body: JSON.stringify(THINKING_MESSAGE) });
    const response = await client.responses.create({ model: MODELS.anthropic, input: 'Which bird?', reasoning: { effort: 'medium' } });
    expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Herons wade.' }] });
    expect(response.output_text).toBe('heron');
    expect(gateway.upstream.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8_192 });
  });

  it('Responses stream: reasoning summary events, then the text', async () => {
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'text/event-stream', body: thinkingStream() });
    const stream = await client.responses.create({ model: MODELS.anthropic, input: 'Which bird?', stream: true });
    const types: string[] = [];
    let reasoning = '';
    let final: any;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.reasoning_summary_text.delta') reasoning += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    expect(reasoning).toBe('Herons wade.');
    expect(types.indexOf('response.reasoning_summary_text.delta')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(final.output.map((item: { type: string }) => item.type)).toEqual(['reasoning', 'message']);
  });

  it('chat: reasoning_content', async () => {
    gateway.upstream.enqueue({ kind: 'raw', contentType: 'application/json', body: JSON.stringify(THINKING_MESSAGE) });
    const completion = await client.chat.completions.create({
      model: MODELS.anthropic,
      messages: [{ role: 'user', content: 'Which bird?' }],
    });
    expect((completion.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toBe('Herons wade.');
    expect(completion.choices[0]!.message.content).toBe('heron');
  });
});
