/**
 * What a provider's part stream failing after the 200 becomes: one `error` part (a broken connection, a timeout or
 * unreadable data), or nothing when our own signal aborted (the client left, nobody reads the stream).
 */
import { upstreamError, type StreamPart } from '../../normalized/index.js';
import { transportFailure } from './upstream-http.js';
import type { CallSignal } from '../../normalized/index.js';

export function streamFailurePart(error: unknown, signal: CallSignal): StreamPart | undefined {
  if (signal.aborted) return undefined;
  const failure = error instanceof SyntaxError ? upstreamError({ kind: 'protocol' }) : transportFailure(error, signal);
  return { type: 'error', error: failure as ReturnType<typeof upstreamError> };
}
