/**
 * The Responses body the Codex app-server sends as a model provider (stream, custom apply_patch, web_search,
 * reasoning, include, store:false, input items with ids), against a native, a chat-only and an Anthropic destination.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayContext, MODELS, type GatewayTestContext } from './gateway-context.js';

let gateway: GatewayTestContext;
beforeAll(async () => {
  gateway = await createGatewayContext({
    models: [{ id: 'search-refusing', provider: 'openai-fake', upstreamModel: 'upstream-gpt', unsupportedHostedTools: 'refuse' }],
  });
});
afterAll(async () => gateway.close());
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

function codexBody(model: string, extraInput: unknown[] = []): Record<string, unknown> {
  return {
    model,
    instructions: 'You are Codex, a coding agent.',
    input: [
      { type: 'message', id: 'msg_dev', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] },
      { type: 'message', id: 'msg_user', role: 'user', content: [{ type: 'input_text', text: 'add a file' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      ...extraInput,
    ],
    tools: [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Runs a command',
        strict: false,
        parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
      },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Edit files',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch' },
      },
      { type: 'web_search', external_web_access: true },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'xhigh' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'thread-1',
    text: { verbosity: 'low' },
    client_metadata: { thread_id: 'thread-1' },
  };
}

async function events(
  body: Record<string, unknown>,
): Promise<{ status: number; headers: Headers; frames: { event: string; data: any }[] }> {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const frames = text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: '))
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      return { event: eventLine!.slice(7), data: JSON.parse(dataLine!.slice(6)) };
    });
  return { status: response.status, headers: response.headers, frames };
}

describe('Codex provider traffic', () => {
  it('native destination: the body goes through untouched apart from model, and apply_patch comes back as a custom_tool_call', async () => {
    gateway.upstream.enqueue({
      kind: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n',
      callId: 'call_patch_1',
    });
    const body = codexBody(MODELS.native, [{ type: 'additional_tools', role: 'developer', tools: [] }]);
    const { status, frames } = await events(body);
    expect(status).toBe(200);
    expect(gateway.upstream.requests[0]!.body).toEqual({ ...body, model: 'upstream-gpt-native' });
    const done = frames.find((frame) => frame.event === 'response.output_item.done');
    expect(done!.data.item).toMatchObject({ type: 'custom_tool_call', call_id: 'call_patch_1', name: 'apply_patch' });
    expect(frames.at(-1)!.event).toBe('response.completed');
    expect(frames.at(-1)!.data.response.model).toBe(MODELS.native);
    for (const frame of frames) expect(frame.data.type).toBe(frame.event);
  });

  it.each([
    { destination: 'chat-only', model: MODELS.openai },
    { destination: 'anthropic', model: MODELS.anthropic },
  ])('$destination destination: translated, and apply_patch still comes back as a custom_tool_call', async ({ model }) => {
    gateway.upstream.enqueue({
      kind: 'tool_call',
      name: 'apply_patch',
      arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch\n' }),
      callId: 'call_patch_2',
    });
    const body = codexBody(model);
    const { status, headers, frames } = await events(body);
    expect(status).toBe(200);
    const done = frames.find((frame) => frame.event === 'response.output_item.done' && frame.data.item.type === 'custom_tool_call');
    expect(done!.data.item).toMatchObject({ call_id: 'call_patch_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' });
    expect(frames.at(-1)!.event).toBe('response.completed');
    const sent = gateway.upstream.requests[0]!.body;
    if (model === MODELS.openai) {
      expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are Codex, a coding agent.\n\n<permissions instructions>' });
      // A chat-only model has no web search: the tool is left out and named, the turn goes on.
      expect(sent.web_search_options).toBeUndefined();
      expect(headers.get('x-switchyard-dropped-tools')).toBe('web_search');
      expect(sent.reasoning_effort).toBe('xhigh');
      // What chat has too arrives; what it has not is named.
      expect(sent.prompt_cache_key).toBe('thread-1');
      expect(sent.verbosity).toBe('low');
      expect(headers.get('x-switchyard-dropped-fields')).toBe('include, client_metadata');
      expect(sent.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['exec_command', 'apply_patch']);
    } else {
      expect(sent.system).toBe('You are Codex, a coding agent.\n\n<permissions instructions>');
      expect(sent.tools.map((tool: { name: string }) => tool.name)).toEqual(['exec_command', 'apply_patch', 'web_search']);
      expect(sent.tools[2]).toEqual({ type: 'web_search_20250305', name: 'web_search' });
    }
  });

  it('refuses web_search with a clear 400, without calling it, for a model whose policy is to refuse', async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...codexBody('search-refusing'), stream: false }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain('does not offer web search');
    expect(gateway.upstream.requests).toHaveLength(0);
  });

  it('refuses input only a native destination understands when the destination is not native, naming it', async () => {
    const { status } = await events(codexBody(MODELS.anthropic, [{ type: 'additional_tools', role: 'developer', tools: [] }]));
    expect(status).toBe(400);
    expect(gateway.upstream.requests).toHaveLength(0);
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...codexBody(MODELS.openai, [{ type: 'additional_tools', role: 'developer', tools: [] }]), tools: [] }),
    });
    expect((await response.json()).error.message).toContain('input item type additional_tools');
  });
});
