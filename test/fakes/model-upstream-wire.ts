/** Renders one scripted reply in the wire format the request arrived on (chat, responses, messages), streamed or not. */
import type http from 'node:http';
import type { RecordedRequest, Reply } from './model-upstream.js';
import { promptChars, sendJson } from './model-upstream.js';

export type Wire = 'chat' | 'responses' | 'messages';

interface ToolCallScript {
  kind: 'function' | 'custom';
  name: string;
  /** JSON arguments (function) or raw input (custom). */
  payload: string;
  callId: string;
}

interface Script {
  textChunks: string[];
  toolCall?: ToolCallScript;
  usage?: { inputTokens: number; outputTokens: number };
  chunkDelayMs: number;
  end: { kind: 'complete' } | { kind: 'drop'; afterChunks: number } | { kind: 'error'; message: string };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function splitText(text: string, chunks?: number): string[] {
  if (text === '') return [];
  if (chunks && chunks > 0) {
    const size = Math.ceil(text.length / chunks);
    const pieces: string[] = [];
    for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
    return pieces;
  }
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function scriptOf(reply: Exclude<Reply, { kind: 'http_error' } | { kind: 'hang' } | { kind: 'raw' }>, request: RecordedRequest): Script {
  const inputTokens = Math.max(1, Math.ceil(promptChars(request.body) / 4));
  const usageFor = (outputChars: number) => ({ inputTokens, outputTokens: Math.max(1, Math.ceil(outputChars / 4)) });
  switch (reply.kind) {
    case 'text':
      return {
        textChunks: splitText(reply.text, reply.chunks),
        usage: reply.omitUsage ? undefined : (reply.usage ?? usageFor(reply.text.length)),
        chunkDelayMs: reply.chunkDelayMs ?? 0,
        end: { kind: 'complete' },
      };
    case 'tool_call':
      return {
        textChunks: splitText(reply.text ?? ''),
        toolCall: { kind: 'function', name: reply.name, payload: reply.arguments, callId: reply.callId ?? 'call_scripted_1' },
        usage: usageFor((reply.text ?? '').length + reply.arguments.length),
        chunkDelayMs: 0,
        end: { kind: 'complete' },
      };
    case 'custom_tool_call':
      return {
        textChunks: [],
        toolCall: { kind: 'custom', name: reply.name, payload: reply.input, callId: reply.callId ?? 'call_scripted_1' },
        usage: usageFor(reply.input.length),
        chunkDelayMs: 0,
        end: { kind: 'complete' },
      };
    case 'drop_mid_stream':
      return { textChunks: splitText(reply.text), chunkDelayMs: 0, end: { kind: 'drop', afterChunks: reply.afterChunks } };
    case 'error_after_200':
      return { textChunks: splitText(reply.text ?? ''), chunkDelayMs: 0, end: { kind: 'error', message: reply.message } };
  }
}

function errorBody(wire: Wire, status: number, message: string): unknown {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return wire === 'messages' ? { type: 'error', error: { type, message } } : { error: { message, type, code: null } };
}

export async function renderReply(options: {
  wire: Wire;
  reply: Reply;
  request: RecordedRequest;
  response: http.ServerResponse;
}): Promise<void> {
  const { wire, reply, request, response } = options;
  if (reply.kind === 'hang') return;
  if (reply.kind === 'raw') {
    response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType });
    response.end(reply.body);
    return;
  }
  if (reply.kind === 'http_error') {
    return sendJson(response, reply.status, reply.body ?? errorBody(wire, reply.status, `scripted error ${reply.status}`), reply.headers);
  }
  const script = scriptOf(reply, request);
  const stream = request.body?.stream === true;
  if (!stream) {
    if (script.end.kind === 'drop') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":"partial",');
      response.destroy();
      return;
    }
    if (script.end.kind === 'error') return sendJson(response, 500, errorBody(wire, 500, script.end.message));
    return sendJson(response, 200, renderJson(wire, script, request));
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const writer = new SseWriter(response, script.chunkDelayMs);
  const encoder = wire === 'chat' ? chatStream : wire === 'responses' ? responsesStream : messagesStream;
  await encoder(writer, script, request);
  if (!response.destroyed) response.end();
}

class SseWriter {
  deltas = 0;
  constructor(
    readonly response: http.ServerResponse,
    private readonly delayMs: number,
  ) {}
  get closed(): boolean {
    return this.response.destroyed;
  }
  event(type: string | undefined, data: unknown): void {
    if (this.closed) return;
    const json = typeof data === 'string' ? data : JSON.stringify(data);
    this.response.write(type === undefined ? `data: ${json}\n\n` : `event: ${type}\ndata: ${json}\n\n`);
  }
  /** Before each text delta: pause when scripted, and cut the connection when the script says so. */
  async beforeDelta(end: Script['end']): Promise<boolean> {
    if (end.kind === 'drop' && this.deltas >= end.afterChunks) {
      // Let what was written reach the client first: destroy() discards unflushed writes.
      await new Promise<void>((resolve) => this.response.write('', () => resolve()));
      await sleep(20);
      this.response.destroy();
      return false;
    }
    if (this.delayMs > 0 && this.deltas > 0) await sleep(this.delayMs);
    this.deltas += 1;
    return !this.closed;
  }
}

function fullText(script: Script): string {
  return script.textChunks.join('');
}

function renderJson(wire: Wire, script: Script, request: RecordedRequest): unknown {
  const model = request.body?.model ?? 'scripted-model';
  const text = fullText(script);
  const call = script.toolCall;
  const usage = script.usage;
  if (wire === 'chat') {
    const toolCalls = call
      ? [
          {
            id: call.callId,
            type: 'function',
            function: { name: call.name, arguments: call.kind === 'custom' ? JSON.stringify({ input: call.payload }) : call.payload },
          },
        ]
      : undefined;
    return {
      id: 'chatcmpl-scripted',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text === '' ? null : text, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: call ? 'tool_calls' : 'stop',
        },
      ],
      ...(usage
        ? {
            usage: {
              prompt_tokens: usage.inputTokens,
              completion_tokens: usage.outputTokens,
              total_tokens: usage.inputTokens + usage.outputTokens,
            },
          }
        : {}),
    };
  }
  if (wire === 'responses') return responseObject(script, model, 'completed');
  const content: unknown[] = [];
  if (text !== '') content.push({ type: 'text', text });
  if (call) content.push({ type: 'tool_use', id: call.callId, name: call.name, input: toolInput(call) });
  return {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: call ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usage ? { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } : { input_tokens: 0, output_tokens: 0 },
  };
}

function toolInput(call: ToolCallScript): unknown {
  return call.kind === 'custom' ? { input: call.payload } : JSON.parse(call.payload || '{}');
}

function outputItems(script: Script): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  const text = fullText(script);
  if (text !== '') {
    items.push({
      type: 'message',
      id: 'msg_scripted',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    });
  }
  const call = script.toolCall;
  if (call?.kind === 'function')
    items.push({
      type: 'function_call',
      id: 'fc_scripted',
      call_id: call.callId,
      name: call.name,
      arguments: call.payload,
      status: 'completed',
    });
  if (call?.kind === 'custom')
    items.push({
      type: 'custom_tool_call',
      id: 'ctc_scripted',
      call_id: call.callId,
      name: call.name,
      input: call.payload,
      status: 'completed',
    });
  return items;
}

function responseObject(script: Script, model: string, status: string): Record<string, unknown> {
  const usage = script.usage;
  return {
    id: 'resp_scripted',
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: status === 'completed' ? outputItems(script) : [],
    usage:
      usage && status === 'completed'
        ? {
            input_tokens: usage.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: usage.outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.inputTokens + usage.outputTokens,
          }
        : null,
    error: null,
    incomplete_details: null,
  };
}

async function chatStream(writer: SseWriter, script: Script, request: RecordedRequest): Promise<void> {
  const base = {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: request.body?.model ?? 'scripted-model',
  };
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  writer.event(undefined, chunk({ role: 'assistant', content: '' }));
  for (const piece of script.textChunks) {
    if (!(await writer.beforeDelta(script.end))) return;
    writer.event(undefined, chunk({ content: piece }));
  }
  if (script.end.kind === 'drop') return void writer.response.destroy();
  if (script.end.kind === 'error')
    return writer.event(undefined, { error: { message: script.end.message, type: 'server_error', code: null } });
  const call = script.toolCall;
  if (call) {
    const args = call.kind === 'custom' ? JSON.stringify({ input: call.payload }) : call.payload;
    const half = Math.ceil(args.length / 2);
    writer.event(
      undefined,
      chunk({ tool_calls: [{ index: 0, id: call.callId, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    writer.event(undefined, chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }));
    writer.event(undefined, chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }));
  }
  writer.event(undefined, chunk({}, call ? 'tool_calls' : 'stop'));
  const usage = script.usage;
  if (usage && request.body?.stream_options?.include_usage === true) {
    writer.event(undefined, {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    });
  }
  writer.event(undefined, '[DONE]');
}

async function responsesStream(writer: SseWriter, script: Script, request: RecordedRequest): Promise<void> {
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) => writer.event(type, { type, sequence_number: sequence++, ...fields });
  const model = request.body?.model ?? 'scripted-model';
  send('response.created', { response: responseObject(script, model, 'in_progress') });
  send('response.in_progress', { response: responseObject(script, model, 'in_progress') });
  let outputIndex = 0;
  if (script.textChunks.length > 0 || script.end.kind !== 'complete') {
    send('response.output_item.added', {
      output_index: 0,
      item: { type: 'message', id: 'msg_scripted', role: 'assistant', status: 'in_progress', content: [] },
    });
    send('response.content_part.added', {
      item_id: 'msg_scripted',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    for (const piece of script.textChunks) {
      if (!(await writer.beforeDelta(script.end))) return;
      send('response.output_text.delta', { item_id: 'msg_scripted', output_index: 0, content_index: 0, delta: piece });
    }
    if (script.end.kind === 'drop') return void writer.response.destroy();
    if (script.end.kind === 'error') {
      const failed = { ...responseObject(script, model, 'failed'), error: { code: 'server_error', message: script.end.message } };
      return send('response.failed', { response: failed });
    }
    const text = fullText(script);
    send('response.output_text.done', { item_id: 'msg_scripted', output_index: 0, content_index: 0, text });
    send('response.content_part.done', {
      item_id: 'msg_scripted',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text, annotations: [] },
    });
    send('response.output_item.done', { output_index: 0, item: outputItems({ ...script, toolCall: undefined })[0] });
    outputIndex = 1;
  }
  const call = script.toolCall;
  if (call) {
    const done = outputItems({ ...script, textChunks: [] })[0]!;
    const added =
      call.kind === 'function' ? { ...done, arguments: '', status: 'in_progress' } : { ...done, input: '', status: 'in_progress' };
    send('response.output_item.added', { output_index: outputIndex, item: added });
    const itemId = done.id;
    if (call.kind === 'function') {
      send('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: call.payload });
      send('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, arguments: call.payload });
    } else {
      send('response.custom_tool_call_input.delta', { item_id: itemId, output_index: outputIndex, delta: call.payload });
      send('response.custom_tool_call_input.done', { item_id: itemId, output_index: outputIndex, input: call.payload });
    }
    send('response.output_item.done', { output_index: outputIndex, item: done });
  }
  send('response.completed', { response: responseObject(script, model, 'completed') });
}

async function messagesStream(writer: SseWriter, script: Script, request: RecordedRequest): Promise<void> {
  const usage = script.usage;
  const model = request.body?.model ?? 'scripted-model';
  writer.event('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_scripted',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage?.inputTokens ?? 0, output_tokens: 1 },
    },
  });
  let index = 0;
  if (script.textChunks.length > 0 || script.end.kind !== 'complete') {
    writer.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const piece of script.textChunks) {
      if (!(await writer.beforeDelta(script.end))) return;
      writer.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    if (script.end.kind === 'drop') return void writer.response.destroy();
    if (script.end.kind === 'error')
      return writer.event('error', { type: 'error', error: { type: 'api_error', message: script.end.message } });
    writer.event('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  const call = script.toolCall;
  if (call) {
    const json = JSON.stringify(toolInput(call));
    const half = Math.ceil(json.length / 2);
    writer.event('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.callId, name: call.name, input: {} },
    });
    writer.event('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: json.slice(0, half) },
    });
    writer.event('content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: json.slice(half) },
    });
    writer.event('content_block_stop', { type: 'content_block_stop', index });
  }
  writer.event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage?.outputTokens ?? 0 },
  });
  writer.event('message_stop', { type: 'message_stop' });
}
