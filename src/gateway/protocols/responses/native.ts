/**
 * Relays a native Responses upstream stream: each event was parsed by the provider and is re-encoded here, with
 * the response's `model` set back to what the caller asked for. Nothing else is changed.
 */
import type { NativeResponsesEvent, StreamPart } from '../../normalized/index.js';
import type { UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import { responseEcho } from './encode.js';
import { nativeResponseError } from './errors.js';
import { sseEvent as namedEvent } from '../../../kernel/sse.js';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'response.cancelled', 'error']);

export function sseEvent(event: { type: string }): string {
  return namedEvent(event.type, JSON.stringify(event));
}

export class NativeResponsesRelay {
  /** The latest `response` object seen (created → … → terminal). */
  private latest: Json | undefined;
  private terminalSent = false;
  private sequence = 0;

  constructor(
    private readonly model: string,
    private readonly body: Json,
    private readonly nowMs: number,
  ) {}

  private relabel(event: NativeResponsesEvent): NativeResponsesEvent {
    const response = event.response as Json | undefined;
    if (response && typeof response === 'object') {
      response.model = this.model;
      this.latest = response;
    }
    if (typeof event.sequence_number === 'number') this.sequence = event.sequence_number + 1;
    return event;
  }

  /** The upstream sends its own opening events. */
  opening(): string {
    return '';
  }

  /** SSE text for a part ('' for parts without a native form). */
  encode(part: StreamPart): string {
    if (part.type === 'native-event') {
      if (TERMINAL.has(part.event.type)) this.terminalSent = true;
      return sseEvent(this.relabel(part.event));
    }
    if (part.type === 'error' && !this.terminalSent) return sseEvent(this.fail(part.error));
    return '';
  }

  add(part: StreamPart): void {
    if (part.type === 'native-event') {
      if (TERMINAL.has(part.event.type)) this.terminalSent = true;
      this.relabel(part.event);
    } else if (part.type === 'error' && !this.terminalSent) this.fail(part.error);
  }

  response(): Json | undefined {
    return this.latest;
  }

  closing(): string {
    return '';
  }

  result(): Json | undefined {
    return this.latest && this.latest.status !== 'in_progress' ? this.latest : undefined;
  }

  /** The upstream broke without its own terminal event: a `response.failed` in the same response's terms. */
  fail(error: UpstreamError): NativeResponsesEvent {
    this.terminalSent = true;
    const response: Json = {
      ...(this.latest ?? {
        id: 'resp_unknown',
        object: 'response',
        created_at: Math.floor(this.nowMs / 1000),
        output: [],
        ...responseEcho(this.body),
      }),
      model: this.model,
      status: 'failed',
      error: nativeResponseError(error),
    };
    this.latest = response;
    return { type: 'response.failed', sequence_number: this.sequence++, response };
  }
}
