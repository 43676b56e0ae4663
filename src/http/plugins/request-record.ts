/**
 * Request ids and one record of every request: the service's id and the client's own id in the answer headers, the
 * request's span (tracing on), and when it ends the request metric (route template, never the raw URL), the log
 * line and the span's end.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBase62 } from '../../kernel/ids.js';
import { FORWARDED_HEADER } from '../../scale/index.js';
import type { Services } from '../../services.js';
import { endRequestSpan, startRequestSpan } from '../../telemetry/index.js';
import { CLIENT_REQUEST_ID_HEADER, SERVED_BY_HEADER } from '../affinity.js';
import type { App } from '../types.js';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Status recorded for a request the client abandoned before its answer ended (the convention of nginx). */
export const CLIENT_CLOSED_STATUS = 499;

/**
 * The service's id of a request: always its own (`req_…`), except on a request another node forwarded, which keeps
 * the id that node gave it (one id on both nodes' logs, spans and records). A client's own `x-request-id` is kept
 * alongside (see `clientRequestIdOf`), never used as the service's id.
 */
export function requestIdFor(headers: Record<string, string | string[] | undefined>): string {
  const inbound = headers['x-request-id'];
  return headers[FORWARDED_HEADER] !== undefined && typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound)
    ? inbound
    : `req_${randomBase62(20)}`;
}

/** The client's own request id (its `x-request-id`, or `x-client-request-id`), when it is a safe token. */
export function clientRequestIdOf(headers: Record<string, string | string[] | undefined>): string | null {
  // A forwarded request's x-request-id is the first node's id; the client's own travels in x-client-request-id.
  const inbound =
    headers[FORWARDED_HEADER] === undefined
      ? (headers['x-request-id'] ?? headers[CLIENT_REQUEST_ID_HEADER])
      : headers[CLIENT_REQUEST_ID_HEADER];
  return typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound) ? inbound : null;
}

/**
 * The first hook of every request: its ids in the answer headers and its span (tracing on); and one record of it.
 * An answer that was written to its end is recorded by `onResponse` (Fastify runs it on the response's `finish`,
 * streams written on the raw response included); one the client abandoned never finishes, so the response's `close`
 * records it (before `onResponse` could), with status 499 and logged as aborted.
 */
export function registerRequestRecord(app: App, services: Services): void {
  const logRequests = services.logger.isLevelEnabled('info');
  const record = (request: FastifyRequest, reply: FastifyReply, aborted: boolean): void => {
    if (request.recorded) return;
    request.recorded = true;
    const route = request.routeOptions.url;
    const status = aborted ? CLIENT_CLOSED_STATUS : reply.raw.statusCode;
    services.serviceMetrics.httpRequest(request.method, route ?? 'unmatched', status, reply.elapsedTime / 1000);
    if (request.traceSpan !== undefined)
      endRequestSpan(request.traceSpan, { method: request.method, route, status, aborted, servedBy: servedByOf(reply) });
    if (!logRequests) return;
    const clientRequestId = request.clientRequestId ?? undefined;
    const fields = { method: request.method, route, status, ms: Math.round(reply.elapsedTime), clientRequestId };
    if (aborted) request.log.info({ ...fields, aborted: true, sentStatus: reply.raw.statusCode }, 'request aborted by the client');
    else request.log.info(fields, 'request completed');
  };
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    const clientRequestId = clientRequestIdOf(request.headers);
    if (clientRequestId !== null) {
      request.clientRequestId = clientRequestId;
      reply.raw.setHeader(CLIENT_REQUEST_ID_HEADER, clientRequestId);
    }
    request.traceSpan = startRequestSpan({
      method: request.method,
      url: request.url,
      headers: request.headers,
      requestId: request.id,
      clientRequestId: clientRequestId ?? undefined,
    });
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) record(request, reply, true);
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    record(request, reply, false);
    done();
  });
}

function servedByOf(reply: FastifyReply): string | undefined {
  const value = reply.raw.getHeader(SERVED_BY_HEADER);
  return typeof value === 'string' ? value : undefined;
}
