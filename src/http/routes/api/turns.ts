/** `POST /api/turns` and `POST /api/turns/{turn_id}/interrupt`: turns of direct threads. */
import { Type } from '@sinclair/typebox';
import type { TurnStartRequest } from '../../../direct/direct-service.js';
import { validationError } from '../../../kernel/errors.js';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { directRoute, first, settingFields, tags, threadRequest, type Body } from './threads.js';

const TurnStartBody = Type.Object(
  {
    thread_id: Type.Optional(Type.String({ minLength: 1 })),
    threadId: Type.Optional(Type.String({ minLength: 1 })),
    input: Type.Unknown({ description: 'Text, or a list of {type:"text",text} and {type:"image",url:"data:…"} items' }),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    ...settingFields,
  },
  { title: 'TurnStartBody' },
);

export interface TurnRouteDeps {
  direct: Pick<DirectServices, 'threads'>;
}

export async function turnRoutes(app: App, deps: TurnRouteDeps): Promise<void> {
  const { direct } = deps;

  app.post(
    '/turns',
    { config: directRoute, schema: { tags, summary: 'Start a turn on a thread (409 while one runs)', body: TurnStartBody } },
    async (request, reply) => {
      const body = request.body as Body;
      const turn: TurnStartRequest = {
        ...threadRequest(body),
        threadId: first(body.thread_id, body.threadId) as string,
        input: body.input as TurnStartRequest['input'],
      };
      if (!turn.threadId) throw validationError([{ loc: ['body', 'thread_id'], msg: 'thread_id is required', type: 'missing' }]);
      return reply.code(202).send(await direct.threads.startTurn(request.principal!, turn));
    },
  );

  app.post(
    '/turns/:turn_id/interrupt',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Interrupt a running turn (409 when it is not running)',
        params: Type.Object({ turn_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }) }),
      },
    },
    (request) => direct.threads.interrupt(request.principal!, request.params.turn_id, request.query.thread_id),
  );
}
