/**
 * A Responses call → its server-sent event stream. A Responses-capable destination's own events are relayed
 * (native.ts); any other destination's normalized parts are turned into events here. Items open when their first
 * part arrives and close when the next item starts or the call ends. `responseBuilderFor` is the one place that
 * chooses between the two.
 */
import { newId } from '../../../kernel/ids.js';
import type { StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage, type UpstreamError } from '../../normalized/index.js';
import type { GatewayCall } from '../../execute.js';
import type { StreamEncoder } from '../contract.js';
import type { Json } from '../shared/decode-helpers.js';
import { responseEcho, responsesUsage } from './encode.js';
import { responseError } from './errors.js';
import { NativeResponsesRelay, sseEvent } from './native.js';

export { sseEvent };

export interface ResponsesEvent {
  type: string;
  [field: string]: unknown;
}

/** What the Responses protocol needs of a call, native or not: its stream text, its fold and its response. */
export interface ResponseBuilder extends StreamEncoder {
  /** SSE text before the first part ('' for a native relay: the upstream sends its own). */
  opening(): string;
  /** SSE text for one part. */
  encode(part: StreamPart): string;
  /** The response to store once the stream ended (anything but one left `in_progress`). */
  result(): Json | undefined;
  /** Folds one part without producing text (non-streaming callers). */
  add(part: StreamPart): void;
  /** The response as it stands (undefined only for a native relay that has seen none yet). */
  response(): Json | undefined;
  /** The terminal `response.failed` event for a failure the parts did not carry. */
  fail(error: UpstreamError): ResponsesEvent;
}

export function responseBuilderFor(call: GatewayCall, model: string, body: Json, nowMs: number): ResponseBuilder {
  return call.native
    ? new NativeResponsesRelay(model, body, nowMs)
    : new ResponsesEncoder({ model, body, createdAtSeconds: Math.floor(nowMs / 1000) });
}

type OpenItem =
  | { kind: 'message'; index: number; item: Json; text: string }
  /** The model's reasoning text (Anthropic thinking, chat `reasoning_content`), as a reasoning summary. */
  | { kind: 'reasoning'; index: number; item: Json; text: string }
  | { kind: 'call'; index: number; item: Json; custom: boolean; payload: string };

export class ResponsesEncoder implements ResponseBuilder {
  readonly id: string;
  private readonly createdAt: number;
  private sequence = 0;
  private readonly output: Json[] = [];
  private open: OpenItem | undefined;
  private usage: Usage | undefined;
  private status = 'in_progress';
  private error: Json | null = null;
  private incomplete: Json | null = null;

  constructor(private readonly options: { model: string; body: Json; id?: string; createdAtSeconds: number }) {
    this.id = options.id ?? newId('resp', 24);
    this.createdAt = options.createdAtSeconds;
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

  opening(): string {
    return (
      sseEvent(this.event('response.created', { response: this.response() })) +
      sseEvent(this.event('response.in_progress', { response: this.response() }))
    );
  }

  encode(part: StreamPart): string {
    const events = this.events(part);
    if (events.length === 1) return sseEvent(events[0]!);
    let text = '';
    for (const event of events) text += sseEvent(event);
    return text;
  }

  add(part: StreamPart): void {
    this.events(part);
  }

  closing(): string {
    return '';
  }

  result(): Json | undefined {
    return this.status === 'in_progress' ? undefined : this.response();
  }

  private close(): ResponsesEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const events: ResponsesEvent[] = [];
    const itemId = open.item.id;
    if (open.kind === 'reasoning') {
      const part = { type: 'summary_text', text: open.text };
      events.push(
        this.event('response.reasoning_summary_text.done', {
          item_id: itemId,
          output_index: open.index,
          summary_index: 0,
          text: open.text,
        }),
      );
      events.push(
        this.event('response.reasoning_summary_part.done', { item_id: itemId, output_index: open.index, summary_index: 0, part }),
      );
      open.item.summary = [part];
    } else if (open.kind === 'message') {
      const part = { type: 'output_text', text: open.text, annotations: [] };
      events.push(
        this.event('response.output_text.done', {
          item_id: itemId,
          output_index: open.index,
          content_index: 0,
          text: open.text,
          logprobs: [],
        }),
      );
      events.push(this.event('response.content_part.done', { item_id: itemId, output_index: open.index, content_index: 0, part }));
      open.item.content = [part];
    } else if (open.custom) {
      events.push(this.event('response.custom_tool_call_input.done', { item_id: itemId, output_index: open.index, input: open.payload }));
      open.item.input = open.payload;
    } else {
      events.push(
        this.event('response.function_call_arguments.done', { item_id: itemId, output_index: open.index, arguments: open.payload }),
      );
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
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      }),
    ];
  }

  private openReasoning(): ResponsesEvent[] {
    const index = this.output.length;
    const item: Json = { type: 'reasoning', id: newId('rs', 24), summary: [] };
    this.output.push(item);
    this.open = { kind: 'reasoning', index, item, text: '' };
    return [
      this.event('response.output_item.added', { output_index: index, item: { ...item, summary: [] } }),
      this.event('response.reasoning_summary_part.added', {
        item_id: item.id,
        output_index: index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      }),
    ];
  }

  /** The events one part produces. */
  events(part: StreamPart): ResponsesEvent[] {
    switch (part.type) {
      case 'reasoning-delta': {
        const events = this.open?.kind === 'reasoning' ? [] : [...this.close(), ...this.openReasoning()];
        const open = this.open as Extract<OpenItem, { kind: 'reasoning' }>;
        open.text += part.delta;
        events.push(
          this.event('response.reasoning_summary_text.delta', {
            item_id: open.item.id,
            output_index: open.index,
            summary_index: 0,
            delta: part.delta,
          }),
        );
        return events;
      }
      case 'text-delta': {
        const events = this.open?.kind === 'message' ? [] : [...this.close(), ...this.openMessage()];
        const open = this.open as Extract<OpenItem, { kind: 'message' }>;
        open.text += part.delta;
        events.push(
          this.event('response.output_text.delta', {
            item_id: open.item.id,
            output_index: open.index,
            content_index: 0,
            delta: part.delta,
            logprobs: [],
          }),
        );
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
    this.error = responseError(error);
    return this.event('response.failed', { response: this.response() });
  }
}
