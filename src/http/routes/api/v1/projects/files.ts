/** Project workspace files: tree, read, atomic write, delete and download, confined to the project's workspace. */
import { Type } from '@sinclair/typebox';
import { etagOf, type FileService } from '../../../../../agent/files/file-service.js';
import type { ProjectStore } from '../../../../../agent/projects/types.js';
import type { App } from '../../../../types.js';

const config = { auth: 'api', surface: 'projects' } as const;
const params = Type.Object({ projectId: Type.String() });
/** Long enough for any path the service could accept, so overlong paths get its clear 400. */
const PathString = Type.String({ maxLength: 8192 });

function headerValues(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `Content-Disposition: attachment` naming the file: an ASCII fallback and the exact name (RFC 6266 / 5987). */
function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export interface ProjectFileRouteDeps {
  projects: Pick<ProjectStore, 'requireOwned'>;
  files: FileService;
  /** The size limit of one file; the body limit of a write follows from it. */
  fileSizeLimitBytes: number;
}

export async function projectFileRoutes(app: App, deps: ProjectFileRouteDeps): Promise<void> {
  const { files } = deps;
  // Base64 grows content by 4/3; the service itself answers 413 against the configured limit.
  const bodyLimit = Math.ceil((deps.fileSizeLimitBytes * 4) / 3) + 64 * 1024;

  app.get(
    '/:projectId/files/content',
    {
      config,
      schema: {
        tags: ['projects'],
        summary: 'Read a workspace file (utf8 text or base64) with its ETag',
        params,
        querystring: Type.Object({ path: PathString }),
      },
    },
    async (request, reply) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const file = await files.read(project.workspaceDir, request.query.path);
      reply.header('etag', file.etag);
      return { path: file.path, encoding: file.encoding, content: file.content, size_bytes: file.sizeBytes, etag: file.etag };
    },
  );

  app.delete(
    '/:projectId/files/content',
    {
      config,
      schema: {
        tags: ['projects'],
        summary: 'Delete a workspace file, link (never its target) or folder; links on the path are not followed (409)',
        params,
        querystring: Type.Object({ path: PathString }),
      },
    },
    async (request, reply) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      await files.remove(project.workspaceDir, request.query.path);
      return reply.code(204).send();
    },
  );

  app.put(
    '/:projectId/files/content',
    {
      config,
      bodyLimit,
      schema: {
        tags: ['projects'],
        summary: 'Write a workspace file atomically (If-Match, If-None-Match: *; parent folders are created)',
        params,
        body: Type.Object({
          path: PathString,
          content: Type.String(),
          encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { default: 'utf8' }),
        }),
      },
    },
    async (request, reply) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const written = await files.write(project.workspaceDir, {
        ...request.body,
        ifMatch: headerValues(request.headers['if-match']),
        ifNoneMatch: headerValues(request.headers['if-none-match']),
      });
      reply.header('etag', written.etag);
      return reply
        .code(written.created ? 201 : 200)
        .send({ path: written.path, size_bytes: written.sizeBytes, etag: written.etag, created: written.created });
    },
  );

  projectFileReadRoutes(app, deps);
}

/** Reading a project's tree: the listing and the download of one file. */
function projectFileReadRoutes(app: App, deps: ProjectFileRouteDeps): void {
  const { files } = deps;

  app.get(
    '/:projectId/files/tree',
    {
      config,
      schema: {
        tags: ['projects'],
        summary: 'List workspace files (relative paths; symlinks reported, not followed; .git internals left out)',
        params,
        querystring: Type.Object({
          path: Type.Optional(PathString),
          depth: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
          limit: Type.Integer({ minimum: 1, maximum: 5000, default: 1000 }),
        }),
      },
    },
    async (request) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const { path = '', depth, limit } = request.query;
      return files.tree(project.workspaceDir, path, { depth, limit });
    },
  );

  app.get(
    '/:projectId/files/download',
    {
      config,
      schema: {
        tags: ['projects'],
        summary: 'Download a regular workspace file as it is (attachment); links are never followed',
        params,
        querystring: Type.Object({ path: PathString }),
      },
    },
    async (request, reply) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const file = await files.download(project.workspaceDir, request.query.path);
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', attachment(file.path.split('/').at(-1)!))
        .header('x-content-type-options', 'nosniff')
        .header('etag', etagOf(file.content))
        .send(file.content);
    },
  );
}
