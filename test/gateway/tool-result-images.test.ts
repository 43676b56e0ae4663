/** Images a tool returned reach the upstream: inside the tool result where the wire allows it, next to it otherwise. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const DATA_URL = `data:image/png;base64,${PIXEL}`;

let gateway: GatewayTestContext;

beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(`${gateway.url}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(200);
}

const messagesBody = (model: string) => ({
  model,
  max_tokens: 100,
  tools: [{ name: 'screenshot', description: 'Takes a screenshot', input_schema: { type: 'object', properties: {} } }],
  messages: [
    { role: 'user', content: 'What is on the screen?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_shot', name: 'screenshot', input: {} }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_shot',
          content: [
            { type: 'text', text: 'the screen:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    },
  ],
});

describe('images inside tool results', () => {
  it('keeps them inside the tool_result on an Anthropic-kind destination', async () => {
    await post('/v1/messages', messagesBody(MODELS.anthropic));
    const sent = gateway.upstream.requests[0]!.body;
    expect(sent.messages[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_shot',
          content: [
            { type: 'text', text: 'the screen:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    });
  });

  it('sends them in a user message right after the tool messages on an OpenAI chat destination', async () => {
    await post('/v1/messages', messagesBody(MODELS.openai));
    const sent = gateway.upstream.requests[0]!.body;
    expect(sent.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'toolu_shot', content: 'the screen:' },
      { role: 'user', content: [expect.objectContaining({ type: 'text' }), { type: 'image_url', image_url: { url: DATA_URL } }] },
    ]);
  });

  it('does so for a Responses function_call_output with an input_image, before the next user turn', async () => {
    await post('/v1/responses', {
      model: MODELS.openai,
      input: [
        { role: 'user', content: 'look' },
        { type: 'function_call', call_id: 'call_a', name: 'screenshot', arguments: '{}' },
        { type: 'function_call', call_id: 'call_b', name: 'screenshot', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_a', output: [{ type: 'input_image', image_url: DATA_URL }] },
        { type: 'function_call_output', call_id: 'call_b', output: 'no screen' },
        { role: 'user', content: 'and now?' },
      ],
    });
    const roles = gateway.upstream.requests[0]!.body.messages.map(
      (message: { role: string; tool_call_id?: string }) => message.tool_call_id ?? message.role,
    );
    // Every tool result still follows its assistant turn directly; the image comes after all of them.
    expect(roles).toEqual(['user', 'assistant', 'call_a', 'call_b', 'user', 'user']);
    expect(JSON.stringify(gateway.upstream.requests[0]!.body.messages[4])).toContain(DATA_URL);
  });
});
