/** Managed projects, `/api/v1/projects`: create, list, rename and delete (the runtime routes of one project live in runtime.ts). */
import { Type } from '@sinclair/typebox';
import { projectView } from '../../../../../agent/projects/index.js';
import { customerOf } from '../../../../caller.js';
import type { ProjectStore } from '../../../../../agent/projects/types.js';
import type { AgentServices } from '../../../../../agent/index.js';
import type { App } from '../../../../types.js';

const ProjectJson = Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), created_at: Type.Integer() });

const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 100 }) });

export interface ProjectRouteDeps {
  projects: Pick<ProjectStore, 'create' | 'list' | 'requireOwned' | 'rename'>;
  agent: { runtime: Pick<AgentServices['runtime'], 'remove'> };
}

export async function projectRoutes(app: App, deps: ProjectRouteDeps): Promise<void> {
  app.post(
    '',
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
    '',
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

  projectChangeRoutes(app, deps);
}

/** Renaming and deleting one project. */
function projectChangeRoutes(app: App, deps: ProjectRouteDeps): void {
  app.patch(
    '/:projectId',
    {
      config: { auth: 'api', surface: 'projects' },
      schema: {
        tags: ['projects'],
        summary: 'Rename a project (null clears the name)',
        params: ProjectParams,
        body: Type.Object({ name: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]) }),
        response: { 200: ProjectJson },
      },
    },
    async (request) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      return projectView(await deps.projects.rename(project, request.body.name));
    },
  );

  app.delete(
    '/:projectId',
    {
      config: { auth: 'api', surface: 'projects' },
      schema: {
        tags: ['projects'],
        summary: 'Delete a project with its thread link, approvals, events and workspace (409 while a turn runs)',
        params: ProjectParams,
      },
    },
    async (request, reply) => {
      await deps.agent.runtime.remove(request.principal!, request.params.projectId);
      return reply.code(204).send();
    },
  );
}
