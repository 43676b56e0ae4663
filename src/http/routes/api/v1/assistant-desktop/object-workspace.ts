/**
 * The assistant-desktop object workspace: the caller's private workspace, its project folders and repository
 * archives fetched from an https URL (SSRF-safe; archives checked before anything is written).
 */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../../../caller.js';
import { COMMIT_PATTERN, PROJECT_ID_PATTERN, REPOSITORY_NAME_PATTERN } from '../../../../../desktop/object-workspace/workspace.js';
import type { ObjectWorkspaces } from '../../../../../desktop/object-workspace/workspace.js';
import type { App } from '../../../../types.js';

const ProjectBody = Type.Object(
  {
    name: Type.String({
      description: '1-100 letters, digits, space, dot, underscore or hyphen; not only dots; unique per customer (409).',
    }),
  },
  { additionalProperties: true, description: 'Free-form project object; `name` names the project.' },
);
const ProjectParams = Type.Object({ project_id: Type.String({ pattern: PROJECT_ID_PATTERN }) });
const RepositoryParams = Type.Object({
  repository_name: Type.String({
    pattern: REPOSITORY_NAME_PATTERN,
    description: 'Folder name: 1-100 letters, digits, dot, underscore or hyphen; not only dots.',
  }),
});
const RepositoryQuery = Type.Object({
  sourceUrl: Type.String({
    default: '',
    maxLength: 2048,
    description: 'https URL of a zip or tar.gz archive (e.g. a codeload URL); required.',
  }),
  commit: Type.String({
    default: '',
    pattern: COMMIT_PATTERN,
    description: 'The commit or ref the archive is of; checked against a tarball that names its commit.',
  }),
});
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface AssistantDesktopWorkspaceRouteDeps {
  objectWorkspace: ObjectWorkspaces;
}

export async function assistantDesktopWorkspaceRoutes(app: App, deps: AssistantDesktopWorkspaceRouteDeps): Promise<void> {
  const workspaces = deps.objectWorkspace;

  app.post(
    '/object-workspace',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Ensures your private object workspace (idempotent): {created, created_at, projects, repositories}',
      },
    },
    async (request) => workspaces.ensure(customerOf(request).customerId),
  );

  app.post(
    '/object-workspace/projects',
    {
      config: customerAccount,
      bodyLimit: 128 * 1024,
      schema: {
        tags: ['desktop'],
        summary: 'Creates a private project folder → 201 {project_id, name, created_at, body} (name taken: 409)',
        body: ProjectBody,
      },
    },
    async (request, reply) => {
      const created = await workspaces.createProject(customerOf(request).customerId, request.body as Record<string, unknown>);
      return reply.code(201).send(created);
    },
  );

  app.delete(
    '/object-workspace/projects/:project_id',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary: 'Deletes a project marker and its folder (not yours or unknown: 404) → {project_id, deleted}',
        params: ProjectParams,
      },
    },
    async (request) => workspaces.deleteProject(customerOf(request).customerId, request.params.project_id),
  );

  app.post(
    '/object-workspace/repositories/:repository_name',
    {
      config: customerAccount,
      schema: {
        tags: ['desktop'],
        summary:
          'Fetches a zip or tar.gz repository archive over https and stores it unpacked → 201 {repository_name, source_url, commit, format, files, bytes, stored_at, replaced}',
        description:
          'Only https; every address the host resolves to must be public (or the host allow-listed), the connection goes to the checked address, each redirect is checked again. Refused URLs, unsafe entries (path escapes, links) and corrupt archives: 422; too large, too many entries or too compressed: 413. Nothing is stored on failure.',
        params: RepositoryParams,
        querystring: RepositoryQuery,
      },
    },
    async (request, reply) => {
      const stored = await workspaces.storeRepository(
        customerOf(request).customerId,
        request.params.repository_name,
        request.query.sourceUrl,
        request.query.commit,
      );
      return reply.code(201).send(stored);
    },
  );
}
