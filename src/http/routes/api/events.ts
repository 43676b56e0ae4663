/** `GET /api/events`: server-sent events of the caller's direct threads. */
import { Type } from '@sinclair/typebox';
import { customerFor } from '../../../direct/access.js';
import type { ProjectEvents } from '../../../agent/events/index.js';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { streamDirectEvents } from './rpc.js';
import { CustomerQuery, directRoute, tags } from './threads.js';

export interface DirectEventRouteDeps {
  direct: Pick<DirectServices, 'stream'>;
  projectEvents: Pick<ProjectEvents, 'stream'>;
}

export async function directEventRoutes(app: App, deps: DirectEventRouteDeps): Promise<void> {
  app.get(
    '/events',
    {
      config: directRoute,
      schema: {
        tags,
        summary:
          'Server-sent events of your direct threads (id: sequence number, event: app-server method or approval/*); resumes after Last-Event-ID',
        querystring: Type.Object({
          after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
          ...CustomerQuery,
        }),
      },
    },
    (request, reply) =>
      streamDirectEvents(deps, request, reply, customerFor(request.principal!, request.query.customer_id), request.query.after),
  );
}
