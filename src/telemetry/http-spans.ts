/** The span of one HTTP request (kind SERVER), continuing the trace a client or another node named in `traceparent`. */
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { enterSpan, extractContext, startSpan, tracer } from './tracing.js';

export interface RequestSpanStart {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  clientRequestId?: string;
}

/** Starts the request's span and makes it the span in force for the request's hooks and handler; undefined when off. */
export function startRequestSpan(start: RequestSpanStart): Span | undefined {
  if (tracer() === null) return undefined;
  const path = start.url.split('?', 1)[0]!;
  const span = startSpan(start.method, {
    kind: SpanKind.SERVER,
    parent: extractContext(start.headers),
    attributes: {
      'http.request.method': start.method,
      'url.path': path,
      'switchyard.request_id': start.requestId,
      ...(start.clientRequestId !== undefined ? { 'switchyard.client_request_id': start.clientRequestId } : {}),
    },
  })!;
  enterSpan(span);
  return span;
}

/** Ends the request's span with its route template and status; `aborted`: the client left before the answer ended. */
export function endRequestSpan(
  span: Span,
  end: { method: string; route: string | undefined; status: number; aborted: boolean; servedBy?: string },
): void {
  if (end.route !== undefined) {
    span.updateName(`${end.method} ${end.route}`);
    span.setAttribute('http.route', end.route);
  }
  span.setAttribute('http.response.status_code', end.status);
  if (end.servedBy !== undefined) span.setAttribute('switchyard.served_by', end.servedBy);
  if (end.aborted) {
    span.setAttribute('switchyard.client_aborted', true);
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection' });
  } else if (end.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
