/**
 * The raw JSON-RPC passthrough (`POST /api/rpc`) and its notification stream (`GET /api/rpc/events`), for the
 * operator token and keys whose policy grants `rpc` only. Refusals and app-server errors are JSON-RPC error
 * objects with HTTP 200; a missing permission is a 403 before anything is read.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { customerFor } from '../../../direct/access.js';
import { encodeSseComment, SSE_HEADERS } from '../../../kernel/sse.js';
import type { ProjectEvents } from '../../../agent/events/index.js';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { cursorFrom } from '../shared/event-cursor.js';

const rpcRoute = { auth: 'api', surface: 'rpc' } as const;
const CustomerQuery = Type.Object({
  customer_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Operators only: the customer whose app-server to use' })),
});

/** What the direct event stream reads: the customer's direct stream id and the event log. */
export interface DirectStreamDeps {
  direct: Pick<DirectServices, 'stream'>;
  projectEvents: Pick<ProjectEvents, 'stream'>;
}

/** SSE of the customer's direct stream: replay after the cursor, then live events. */
export async function streamDirectEvents(
  deps: DirectStreamDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  customerId: number,
  after: number | undefined,
): Promise<void> {
  const cursor = cursorFrom(request.headers['last-event-id'], after);
  const streamId = await deps.direct.stream(customerId);
  reply.hijack();
  reply.raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': request.id });
  reply.raw.write(encodeSseComment('connected'));
  try {
    await deps.projectEvents.stream({ projectId: streamId, after: cursor, sink: reply.raw });
  } catch (error) {
    request.log.error({ err: error, requestId: request.id }, 'direct event stream failed');
  } finally {
    if (!reply.raw.writableEnded) reply.raw.end();
  }
}

export interface DirectRpcRouteDeps {
  direct: Pick<DirectServices, 'rpc' | 'stream'>;
  projectEvents: Pick<ProjectEvents, 'stream'>;
}

export async function directRpcRoutes(app: App, deps: DirectRpcRouteDeps): Promise<void> {
  app.post(
    '/rpc',
    {
      config: rpcRoute,
      schema: {
        tags: ['rpc'],
        summary: 'One JSON-RPC 2.0 request to your app-server (guarded allow-list); errors are JSON-RPC error objects',
        querystring: CustomerQuery,
        body: Type.Unknown({ description: '{"jsonrpc":"2.0","id":1,"method":"thread/goal/get","params":{…}}' }),
      },
    },
    (request) => deps.direct.rpc.handle(request.principal!, request.body, request.query.customer_id, request.log),
  );

  app.get(
    '/rpc/events',
    {
      config: rpcRoute,
      schema: {
        tags: ['rpc'],
        summary: 'Server-sent notifications of your passthrough session (the direct threads stream; approvals included)',
        querystring: Type.Object({
          after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
          ...CustomerQuery.properties,
        }),
      },
    },
    (request, reply) =>
      streamDirectEvents(deps, request, reply, customerFor(request.principal!, request.query.customer_id), request.query.after),
  );
}
