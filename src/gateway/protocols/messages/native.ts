/**
 * Relays an Anthropic-kind upstream's own Messages reply to a Messages caller: each event (or the one message
 * body) as the upstream sent it, with only the message's `model` set back to what the caller asked for. The
 * normalized parts alongside are for metering only.
 */
import type { StreamPart } from '../../normalized/index.js';
import type { Collected } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import type { StreamEncoder } from '../contract.js';
import { messagesStreamError } from './errors.js';
import { sseEvent } from '../../../kernel/sse.js';

export class NativeMessagesRelay implements StreamEncoder {
  private ended = false;

  constructor(private readonly model: string) {}

  opening(): string {
    return '';
  }

  closing(): string {
    return '';
  }

  /** SSE text for a part ('' for the normalized parts). */
  encode(part: StreamPart): string {
    if (part.type === 'native-event') {
      const event = part.event as Json;
      if (event.type === 'message_stop' || event.type === 'error') this.ended = true;
      return sseEvent(String(event.type), JSON.stringify(this.relabel(event)));
    }
    // The upstream broke without its own error event (a dropped connection, a timeout).
    if (part.type === 'error' && !this.ended) {
      this.ended = true;
      return messagesStreamError(part.error);
    }
    return '';
  }

  /** A non-streaming caller's message: the upstream's body, relabelled. */
  message(nativeEvents: Json[], collected: Collected): Json | undefined {
    if (collected.error) return undefined;
    const body = nativeEvents.find((event) => event.type === 'message');
    return body ? this.relabel(body) : undefined;
  }

  private relabel(event: Json): Json {
    if (event.type === 'message') return { ...event, model: this.model };
    const message = event.message as Json | undefined;
    if (event.type === 'message_start' && message && typeof message === 'object')
      return { ...event, message: { ...message, model: this.model } };
    return event;
  }
}
