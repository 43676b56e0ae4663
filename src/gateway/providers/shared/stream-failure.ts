/**
 * Wraps a provider's part stream so it never throws: a broken connection or unreadable data after the 200 becomes
 * one `error` part; when our own signal aborted (the client left) the stream just ends.
 */
import { upstreamError, type StreamPart } from '../../spec/index.js';
import { transportFailure } from './upstream-http.js';

export async function* guardStream(parts: AsyncIterable<StreamPart>, signal: AbortSignal): AsyncGenerator<StreamPart, void, undefined> {
  try {
    yield* parts;
  } catch (error) {
    if (signal.aborted) return;
    const failure = error instanceof SyntaxError ? upstreamError({ kind: 'protocol' }) : transportFailure(error, signal);
    yield { type: 'error', error: failure as ReturnType<typeof upstreamError> };
  }
}
