/** Managed projects: create and list (the runtime routes of one project live in agent.ts). */
import { Type } from '@sinclair/typebox';
import { projectView } from '../../../../../agent/projects/index.js';
import { customerOf } from '../../../../caller.js';
import type { ProjectStore } from '../../../../../agent/projects/types.js';
import type { App } from '../../../../types.js';

const ProjectJson = Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), created_at: Type.Integer() });

export interface ProjectRouteDeps {
  projects: Pick<ProjectStore, 'create' | 'list'>;
}

export async function projectRoutes(app: App, deps: ProjectRouteDeps): Promise<void> {
  app.post(
    '/api/v1/projects',
    {
      config: { auth: 'api', surface: 'projects', caller: 'project-owner' },
      schema: {
        tags: ['projects'],
        summary: 'Create a managed project with its own workspace',
        body: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
        response: { 201: ProjectJson },
      },
      // The body is optional: no body means a project without a name.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request, reply) => {
      const project = await deps.projects.create(customerOf(request).customerId, request.body.name ?? null);
      return reply.code(201).send(projectView(project));
    },
  );

  app.get(
    '/api/v1/projects',
    {
      config: { auth: 'api', surface: 'projects' },
      schema: {
        tags: ['projects'],
        summary: 'List managed projects, newest first',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
          cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        }),
        response: { 200: Type.Object({ data: Type.Array(ProjectJson), next_cursor: Type.Union([Type.String(), Type.Null()]) }) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { limit, cursor } = request.query;
      // One extra row tells whether another page exists.
      const rows = await deps.projects.list(principal.kind === 'customer' ? principal.customerId : null, {
        limit: limit + 1,
        after: cursor,
      });
      const page = rows.slice(0, limit);
      return { data: page.map(projectView), next_cursor: rows.length > limit ? page[page.length - 1]!.id : null };
    },
  );
}
