/** The project event stream (SSE): live events, replay after Last-Event-ID or ?after=, reset and overflow frames. */
import { Type } from '@sinclair/typebox';
import { encodeSseComment, SSE_HEADERS } from '../../../../../kernel/sse.js';
import type { ProjectEvents } from '../../../../../agent/events/index.js';
import type { ProjectStore } from '../../../../../agent/projects/types.js';
import type { App } from '../../../../types.js';
import { cursorFrom } from '../../../shared/event-cursor.js';

export interface ProjectEventRouteDeps {
  projects: Pick<ProjectStore, 'requireOwned'>;
  projectEvents: Pick<ProjectEvents, 'stream' | 'endStreams'>;
}

export async function projectEventRoutes(app: App, deps: ProjectEventRouteDeps): Promise<void> {
  app.addHook('preClose', async () => deps.projectEvents.endStreams());

  app.get(
    '/:projectId/events',
    {
      config: { auth: 'api', surface: 'projects' },
      schema: {
        tags: ['projects'],
        summary: 'Server-sent events of the project (id: sequence number, event: type); resumes after Last-Event-ID',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }),
      },
    },
    async (request, reply) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const after = cursorFrom(request.headers['last-event-id'], request.query.after);
      reply.hijack();
      // The body ends with the connection (no chunked framing): each frame is one write of shared bytes to the
      // socket, which is what bounds the fan-out to many subscribers.
      reply.raw.useChunkedEncodingByDefault = false;
      reply.raw.writeHead(200, { ...SSE_HEADERS, connection: 'close', 'x-request-id': request.id });
      reply.raw.write(encodeSseComment('connected'));
      try {
        await deps.projectEvents.stream({ projectId: project.id, after, sink: reply.raw });
      } catch (error) {
        request.log.error({ err: error, requestId: request.id }, 'project event stream failed');
      } finally {
        if (!reply.raw.writableEnded) reply.raw.end();
      }
    },
  );
}
