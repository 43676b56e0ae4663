/** Where an SSE client resumes (the `Last-Event-ID` header, else `?after=`), and the one way a live feed is served. */
import type { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../../kernel/errors.js';
import { SSE_HEADERS } from '../../../kernel/sse.js';
import { customerOf } from '../../caller.js';

export function cursorFrom(lastEventId: string | string[] | undefined, after: number | undefined): number | null {
  // A reconnecting EventSource keeps its original URL (?after=) and sends the newer Last-Event-ID: the header wins.
  if (lastEventId === undefined) return after ?? null;
  const text = (Array.isArray(lastEventId) ? lastEventId[0]! : lastEventId).trim();
  if (!/^\d{1,15}$/.test(text)) {
    throw validationError([{ loc: ['header', 'last-event-id'], msg: 'Last-Event-ID must be a sequence number', type: 'int_parsing' }]);
  }
  return Number(text);
}

/**
 * Serves one customer's live feed (the shoutbox, push messages) as text/event-stream: resumes after
 * Last-Event-ID or `?after_id=`, logs a failed stream as `<what> stream failed`, and always ends the response.
 */
export async function serveFeed(
  request: FastifyRequest,
  reply: FastifyReply,
  feed: { stream(options: { customerId: number; after: number | null; sink: Writable }): Promise<void> },
  what: string,
  afterId: number | undefined,
): Promise<void> {
  const customerId = customerOf(request).customerId;
  const after = cursorFrom(request.headers['last-event-id'], afterId);
  reply.hijack();
  reply.raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': request.id });
  try {
    await feed.stream({ customerId, after, sink: reply.raw });
  } catch (error) {
    request.log.error({ err: error, requestId: request.id }, `${what} stream failed`);
  } finally {
    if (!reply.raw.writableEnded) reply.raw.end();
  }
}
