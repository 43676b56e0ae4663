/**
 * A Responses history whose tool call has no output (a crash mid-command) is answered "aborted" before any
 * destination sees it: the chat and Anthropic conversions get a well-formed history, a Responses destination the
 * repaired input, and a complete history passes unchanged.
 */
import { describe, expect, it } from 'vitest';
import { checkToolResults } from '../../src/gateway/checks.js';
import { decodeResponsesRequest } from '../../src/gateway/protocols/responses/decode.js';
import { ABORTED_TOOL_OUTPUT, withAbortedToolOutputs } from '../../src/gateway/protocols/responses/repair.js';
import { toAnthropicRequest } from '../../src/gateway/providers/anthropic/convert-request.js';
import { toChatRequest } from '../../src/gateway/providers/openai/convert-request.js';

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const call = (id: string) => ({ type: 'function_call', call_id: id, name: 'exec_command', arguments: '{"cmd":"sleep 30"}' });
const output = (id: string, text = 'ok') => ({ type: 'function_call_output', call_id: id, output: text });
const tools = [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: {} } }];

/** What Codex sends after its app-server was killed while `sleep 30` ran: the call, no output, then the next prompt. */
const cutShort = [user('run it'), call('call_1'), user('next turn')];

describe('tool calls without an output', () => {
  it('get an aborted output right after the call, for function and custom calls alike', () => {
    const custom = { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' };
    expect(withAbortedToolOutputs([...cutShort, custom])).toEqual([
      user('run it'),
      call('call_1'),
      { type: 'function_call_output', call_id: 'call_1', output: ABORTED_TOOL_OUTPUT },
      user('next turn'),
      custom,
      { type: 'custom_tool_call_output', call_id: 'call_2', output: ABORTED_TOOL_OUTPUT },
    ]);
  });

  it('leave a complete history (parallel calls answered later) as it is', () => {
    const complete = [user('go'), call('a'), call('b'), output('b'), output('a'), user('more')];
    expect(withAbortedToolOutputs(complete)).toBe(complete);
    const body = { model: 'm', input: complete };
    expect(decodeResponsesRequest(body).native).toEqual({ protocol: 'openai-responses', body });
  });

  it('decode into a history every destination accepts', () => {
    const request = decodeResponsesRequest({ model: 'm', input: cutShort, tools });
    expect(() => checkToolResults(request)).not.toThrow();
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'run it' }] },
      {
        role: 'assistant',
        content: [],
        toolCalls: [{ id: 'call_1', kind: 'function', name: 'exec_command', arguments: '{"cmd":"sleep 30"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: ABORTED_TOOL_OUTPUT }] },
      { role: 'user', content: [{ type: 'text', text: 'next turn' }] },
    ]);
    // A Responses destination receives the repaired input.
    const native = request.native as { body: { input: unknown[] } };
    expect(native.body.input[2]).toEqual({ type: 'function_call_output', call_id: 'call_1', output: ABORTED_TOOL_OUTPUT });

    const chat = toChatRequest(request, 'upstream');
    expect(chat.messages.slice(1, 3)).toMatchObject([
      { role: 'assistant', tool_calls: [{ id: 'call_1' }] },
      { role: 'tool', tool_call_id: 'call_1', content: ABORTED_TOOL_OUTPUT },
    ]);
    const anthropic = toAnthropicRequest(request, { upstreamModel: 'u', defaultMaxTokens: 1000 });
    const toolResult = anthropic.messages
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .find((block) => (block as { type: string }).type === 'tool_result');
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1' });
  });
});
