/** `POST /api/projects/open`: open a working directory of the direct surface (its latest thread, else a new one). */
import { Type } from '@sinclair/typebox';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { CustomerQuery, directRoute, tags, ThreadStartBody, threadRequest } from './threads.js';

const ProjectOpenBody = Type.Object(
  { ...ThreadStartBody.properties, cwd: Type.String({ minLength: 1 }), prompt: Type.Optional(Type.String({ minLength: 1 })) },
  { title: 'ProjectOpenBody' },
);

export interface DirectProjectRouteDeps {
  direct: Pick<DirectServices, 'threads'>;
}

export async function directProjectRoutes(app: App, deps: DirectProjectRouteDeps): Promise<void> {
  const { direct } = deps;

  app.post(
    '/projects/open',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Open a working directory: resume its latest thread, else start one; a prompt starts a turn',
        body: ProjectOpenBody,
        querystring: Type.Object(CustomerQuery),
      },
    },
    (request) =>
      direct.threads.openProject(
        request.principal!,
        { ...threadRequest(request.body), prompt: request.body.prompt },
        request.query.customer_id,
      ),
  );
}
