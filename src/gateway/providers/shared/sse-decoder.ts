/**
 * SSE in, one decoder: bytes → text (UTF-8 across chunk boundaries) → spec-compliant event parser → events.
 * Events are yielded as soon as a chunk completes them; nothing is buffered beyond the current chunk.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<EventSourceMessage, void, undefined> {
  const decoder = new TextDecoder();
  let pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const ready = pending;
      pending = [];
      yield* ready;
    }
  }
  parser.feed(decoder.decode());
  yield* pending;
}
