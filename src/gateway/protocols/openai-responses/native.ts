/**
 * Relays a native Responses upstream stream: each event was parsed by the provider and is re-encoded here, with
 * the response's `model` set back to what the caller asked for. Nothing else is changed.
 */
import type { NativeResponsesEvent, StreamPart } from '../../normalized/index.js';
import type { UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import { responseEcho, sseEvent } from './encode.js';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'response.cancelled', 'error']);

export class NativeResponsesRelay {
  /** The latest `response` object seen (created → … → terminal). */
  latest: Json | undefined;
  private terminalSent = false;
  private sequence = 0;

  constructor(
    private readonly model: string,
    private readonly body: Json,
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

  /** SSE text for a part ('' for parts without a native form). */
  encode(part: StreamPart): string {
    if (part.type === 'native-event') {
      if (TERMINAL.has(part.event.type)) this.terminalSent = true;
      return sseEvent(this.relabel(part.event));
    }
    if (part.type === 'error' && !this.terminalSent) return sseEvent(this.failedEvent(part.error));
    return '';
  }

  /** The upstream broke without its own terminal event: a `response.failed` in the same response's terms. */
  failedEvent(error: UpstreamError): NativeResponsesEvent {
    this.terminalSent = true;
    const response: Json = {
      ...(this.latest ?? { id: 'resp_unknown', object: 'response', created_at: Math.floor(Date.now() / 1000), output: [], ...responseEcho(this.body) }),
      model: this.model,
      status: 'failed',
      error: { code: 'server_error', message: error.message },
    };
    this.latest = response;
    return { type: 'response.failed', sequence_number: this.sequence++, response };
  }

  /** For a non-streaming caller: the response of the terminal event, relabelled. */
  finalResponse(event: NativeResponsesEvent | undefined): Json | undefined {
    return event ? (this.relabel(event).response as Json) : undefined;
  }
}
