/**
 * Normalized parts → a Responses `response` object and its event stream (for destinations that do not speak
 * Responses). Items open when their first part arrives and close when the next item starts or the call ends.
 */
import { newId } from '../../../kernel/ids.js';
import type { StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage, type UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';

export interface ResponsesEvent {
  type: string;
  [field: string]: unknown;
}

export function responsesUsage(usage: Usage | undefined): Json | null {
  if (!usage) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The request fields a Response object echoes back. */
export function responseEcho(body: Json): Json {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: body.reasoning ?? null,
    store: body.store !== false,
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: body.truncation ?? 'disabled',
    background: body.background === true,
    user: body.user ?? null,
  };
}

export function sseEvent(event: ResponsesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

type OpenItem =
  | { kind: 'message'; index: number; item: Json; text: string }
  /** The model's reasoning text (Anthropic thinking, chat `reasoning_content`), as a reasoning summary. */
  | { kind: 'reasoning'; index: number; item: Json; text: string }
  | { kind: 'call'; index: number; item: Json; custom: boolean; payload: string };

export class ResponsesEncoder {
  readonly id: string;
  private readonly createdAt: number;
  private sequence = 0;
  private readonly output: Json[] = [];
  private open: OpenItem | undefined;
  private usage: Usage | undefined;
  private status = 'in_progress';
  private error: Json | null = null;
  private incomplete: Json | null = null;

  constructor(private readonly options: { model: string; body: Json; id?: string; createdAtSeconds?: number }) {
    this.id = options.id ?? newId('resp', 24);
    this.createdAt = options.createdAtSeconds ?? Math.floor(Date.now() / 1000);
  }

  response(): Json {
    return {
      id: this.id,
      object: 'response',
      created_at: this.createdAt,
      status: this.status,
      error: this.error,
      incomplete_details: this.incomplete,
      model: this.options.model,
      output: this.output,
      usage: this.status === 'in_progress' ? null : responsesUsage(this.usage),
      ...responseEcho(this.options.body),
    };
  }

  private event(type: string, fields: Json): ResponsesEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }

  opening(): ResponsesEvent[] {
    return [this.event('response.created', { response: this.response() }), this.event('response.in_progress', { response: this.response() })];
  }

  private close(): ResponsesEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const events: ResponsesEvent[] = [];
    const itemId = open.item.id;
    if (open.kind === 'reasoning') {
      const part = { type: 'summary_text', text: open.text };
      events.push(this.event('response.reasoning_summary_text.done', { item_id: itemId, output_index: open.index, summary_index: 0, text: open.text }));
      events.push(this.event('response.reasoning_summary_part.done', { item_id: itemId, output_index: open.index, summary_index: 0, part }));
      open.item.summary = [part];
    } else if (open.kind === 'message') {
      const part = { type: 'output_text', text: open.text, annotations: [] };
      events.push(this.event('response.output_text.done', { item_id: itemId, output_index: open.index, content_index: 0, text: open.text, logprobs: [] }));
      events.push(this.event('response.content_part.done', { item_id: itemId, output_index: open.index, content_index: 0, part }));
      open.item.content = [part];
    } else if (open.custom) {
      events.push(this.event('response.custom_tool_call_input.done', { item_id: itemId, output_index: open.index, input: open.payload }));
      open.item.input = open.payload;
    } else {
      events.push(this.event('response.function_call_arguments.done', { item_id: itemId, output_index: open.index, arguments: open.payload }));
      open.item.arguments = open.payload;
    }
    open.item.status = 'completed';
    this.output[open.index] = open.item;
    events.push(this.event('response.output_item.done', { output_index: open.index, item: open.item }));
    return events;
  }

  private openMessage(): ResponsesEvent[] {
    const index = this.output.length;
    const item: Json = { type: 'message', id: newId('msg', 24), role: 'assistant', status: 'in_progress', content: [] };
    this.output.push(item);
    this.open = { kind: 'message', index, item, text: '' };
    return [
      this.event('response.output_item.added', { output_index: index, item: { ...item } }),
      this.event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ];
  }

  private openReasoning(): ResponsesEvent[] {
    const index = this.output.length;
    const item: Json = { type: 'reasoning', id: newId('rs', 24), summary: [] };
    this.output.push(item);
    this.open = { kind: 'reasoning', index, item, text: '' };
    return [
      this.event('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }),
      this.event('response.reasoning_summary_part.added', { item_id: item.id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } }),
    ];
  }

  encode(part: StreamPart): ResponsesEvent[] {
    switch (part.type) {
      case 'reasoning-delta': {
        const events = this.open?.kind === 'reasoning' ? [] : [...this.close(), ...this.openReasoning()];
        const open = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
        open.text += part.delta;
        events.push(this.event('response.reasoning_summary_text.delta', { item_id: open.item.id, output_index: open.index, summary_index: 0, delta: part.delta }));
        return events;
      }
      case 'text-delta': {
        const events = this.open?.kind === 'message' ? [] : [...this.close(), ...this.openMessage()];
        const open = this.open as Extract<OpenItem, { kind: 'message' }>;
        open.text += part.delta;
        events.push(this.event('response.output_text.delta', { item_id: open.item.id, output_index: open.index, content_index: 0, delta: part.delta, logprobs: [] }));
        return events;
      }
      case 'tool-call-start': {
        const events = this.close();
        const custom = part.kind === 'custom';
        const index = this.output.length;
        const item: Json = custom
          ? { type: 'custom_tool_call', id: newId('ctc', 24), call_id: part.id, name: part.name, input: '', status: 'in_progress' }
          : { type: 'function_call', id: newId('fc', 24), call_id: part.id, name: part.name, arguments: '', status: 'in_progress' };
        this.output.push(item);
        this.open = { kind: 'call', index, item, custom, payload: '' };
        events.push(this.event('response.output_item.added', { output_index: index, item: { ...item } }));
        return events;
      }
      case 'tool-call-delta': {
        const open = this.open;
        if (open?.kind !== 'call') return [];
        open.payload += part.delta;
        const type = open.custom ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
        return [this.event(type, { item_id: open.item.id, output_index: open.index, delta: part.delta })];
      }
      case 'tool-call-end':
        return this.close();
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return [];
      case 'finish': {
        const events = this.close();
        if (part.reason === 'length' || part.reason === 'content-filter') {
          this.status = 'incomplete';
          this.incomplete = { reason: part.reason === 'length' ? 'max_output_tokens' : 'content_filter' };
          events.push(this.event('response.incomplete', { response: this.response() }));
        } else {
          this.status = 'completed';
          events.push(this.event('response.completed', { response: this.response() }));
        }
        return events;
      }
      case 'error':
        return [this.fail(part.error)];
      default:
        return [];
    }
  }

  /** The terminal `response.failed` event; open items stay incomplete, as the upstream left them. */
  fail(error: UpstreamError): ResponsesEvent {
    this.status = 'failed';
    this.error = { code: error.status === 429 ? 'rate_limit_exceeded' : 'server_error', message: error.message };
    return this.event('response.failed', { response: this.response() });
  }
}
