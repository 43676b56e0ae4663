/**
 * SSE in, one decoder: bytes → text (UTF-8 across chunk boundaries) → spec-compliant event parser → events.
 * The events a chunk completes are yielded together as soon as it arrived (decoders iterate each batch
 * synchronously: one asynchronous step per upstream read rather than per event); nothing waits for a later chunk.
 *
 * A decoder stops at the stream's terminal event, usually before it has read the end of the body. Abandoning a
 * readable destroys it with an AbortError (a stack trace per call) and, had the body not been complete, the
 * upstream connection; the rest is read and dropped instead, and only an upstream that keeps sending after its
 * terminal event for longer than TAIL_DRAIN_LIMIT_MS gets its body destroyed.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

const TAIL_DRAIN_LIMIT_MS = 1000;

export async function* sseEventBatches(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<EventSourceMessage[], void, undefined> {
  const decoder = new TextDecoder();
  let pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const chunks = body[Symbol.asyncIterator]();
  let bodyDone = false;
  try {
    for (;;) {
      let next: IteratorResult<Buffer | Uint8Array>;
      try {
        next = await chunks.next();
      } catch (error) {
        bodyDone = true;
        throw error;
      }
      if (next.done) {
        bodyDone = true;
        break;
      }
      parser.feed(decoder.decode(next.value, { stream: true }));
      if (pending.length > 0) {
        const ready = pending;
        pending = [];
        yield ready;
      }
    }
  } finally {
    if (!bodyDone) void discardTail(chunks);
  }
  parser.feed(decoder.decode());
  if (pending.length > 0) yield pending;
}

async function discardTail(chunks: AsyncIterator<unknown>): Promise<void> {
  const limit = setTimeout(() => void chunks.return?.()?.catch(() => undefined), TAIL_DRAIN_LIMIT_MS);
  try {
    while (!(await chunks.next()).done);
  } catch {
    // Destroyed (the limit, or the client's abort): nothing left to read.
  } finally {
    clearTimeout(limit);
  }
}
