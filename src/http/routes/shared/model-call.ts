/**
 * The one helper that registers a model-call route: its schema and auth surface, then the gateway's driver
 * (decode → execute → stream or collect → store) with the client-disconnect signal and an SSE writer.
 */
import type { FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Decoded, InboundProtocol } from '../../../gateway/protocols/contract.js';
import { drive, type DriverDeps } from '../../../gateway/protocols/driver.js';
import type { App } from '../../types.js';
import { SseWriter, bodyOf, clientAbortSignal, principalOf } from '../../call-context.js';

export interface ModelCallRoute<D extends Decoded> {
  url: string;
  config: NonNullable<RouteShorthandOptions['config']>;
  schema: NonNullable<RouteShorthandOptions['schema']>;
  protocol: InboundProtocol<D>;
  /** The status of a whole (non-streamed) answer; 200 when absent. */
  status?: number;
  /**
   * Runs before the driver; an answer it returns (a queued background response, or the reply it streamed) is the
   * route's answer. Wrapped in an object: a bare `FastifyReply` is a thenable, which an `await` would resolve to
   * undefined once it is sent, and the driver would then run the call a second time.
   */
  before?(request: FastifyRequest, reply: FastifyReply): Promise<{ answer: unknown } | undefined>;
}

export function modelCallRoute<D extends Decoded>(app: App, deps: DriverDeps, route: ModelCallRoute<D>): void {
  const { protocol, before } = route;
  app.post(route.url, {
    config: route.config,
    schema: route.schema,
    handler: async (request, reply) => {
      if (before) {
        const handled = await before(request, reply);
        if (handled !== undefined) return handled.answer;
      }
      const input = {
        principal: principalOf(request),
        body: bodyOf(request),
        headers: request.headers,
        requestId: request.id,
        clientRequestId: request.clientRequestId ?? undefined,
        signal: clientAbortSignal(reply),
        host: request.headers.host,
        params: request.params as Record<string, unknown>,
        answerHeaders: (headers: Record<string, string>) => void reply.headers(headers),
      };
      const answer = await drive(deps, protocol, input, (headers) => new SseWriter(reply, request.id, headers));
      if (answer === undefined) return reply;
      if (route.status !== undefined) reply.code(route.status);
      return answer;
    },
  });
}
