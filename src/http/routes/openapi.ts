/**
 * The API reference: `GET /openapi.json` and an interactive reference at `/docs` (Swagger UI, its assets served by
 * this service under `/docs/assets/`, no CDN), both generated from the route schemas and the landing text and
 * examples of api-reference.ts. Admin routes (`/api/admin`) appear only when the request carries an operator bearer,
 * and at `/api/admin/docs` (`/api/admin/openapi.json`) for a signed-in operator console.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyRequest } from 'fastify';
import { bearerFrom } from '../../accounts/identity.js';
import type { Identity } from '../../accounts/identity.js';
import type { App } from '../types.js';

type OpenApiDocument = { paths?: Record<string, Record<string, OperationObject>>; [key: string]: unknown };
type OperationObject = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string; default?: unknown } }[];
  requestBody?: unknown;
  security?: unknown;
};

const HIDDEN = new Set(['/openapi.json', '/docs', '/api/admin/openapi.json', '/api/admin/docs']);

/** Swagger UI's files as shipped in `@fastify/swagger-ui` (bundle, preset, CSS, favicons). */
const SWAGGER_UI_ASSETS = path.join(path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
const ASSETS_PREFIX = '/docs/assets/';

async function isOperator(identity: Pick<Identity, 'resolve'>, request: FastifyRequest): Promise<boolean> {
  try {
    return (await identity.resolve(bearerFrom(request.headers, false))).kind === 'operator';
  } catch {
    return false;
  }
}

export function filterDocument(document: OpenApiDocument, includeAdmin: boolean): OpenApiDocument {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {})
      .filter(([path]) => !HIDDEN.has(path) && (includeAdmin || !path.startsWith('/api/admin')))
      .map(([path, operations]) => [path, withOptionalDefaults(operations)]),
  );
  return { ...document, paths };
}

/**
 * A query parameter with a default (`limit`) may be left out: the route schema lists it as required so the
 * validator fills the default in, but the document must not tell clients they have to send it.
 */
function withOptionalDefaults(operations: Record<string, OperationObject>): Record<string, OperationObject> {
  return Object.fromEntries(
    Object.entries(operations).map(([method, operation]) => {
      if (!Array.isArray(operation.parameters)) return [method, operation];
      const parameters = operation.parameters.map((parameter) =>
        parameter.in === 'query' && parameter.required === true && parameter.schema?.default !== undefined
          ? { ...parameter, required: false }
          : parameter,
      );
      return [method, { ...operation, parameters }];
    }),
  );
}

/** JSON safe inside a `<script>` element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The Swagger UI page with the (already filtered) document inlined: what the caller may see, nothing more. */
export function renderDocsPage(document: OpenApiDocument): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchyard API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="${ASSETS_PREFIX}favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS_PREFIX}swagger-ui.css">
</head><body><noscript><p>The machine-readable reference is <a href="/openapi.json">/openapi.json</a>.</p></noscript><div id="swagger-ui"></div>
<script src="${ASSETS_PREFIX}swagger-ui-bundle.js"></script>
<script src="${ASSETS_PREFIX}swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({
  spec: ${scriptJson(document)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
</script></body></html>`;
}

export interface OpenApiRouteDeps {
  identity: Pick<Identity, 'resolve'>;
}

export async function openApiRoutes(app: App, deps: OpenApiRouteDeps): Promise<void> {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (request) =>
    filterDocument(app.swagger() as OpenApiDocument, await isOperator(deps.identity, request)),
  );
  app.get('/docs', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const document = filterDocument(app.swagger() as OpenApiDocument, await isOperator(deps.identity, request));
    return reply.type('text/html; charset=utf-8').send(renderDocsPage(document));
  });
  // The same reference with the operator routes, for an operator console session (its cookie is sent to
  // /api/admin only) or an operator bearer; anyone else gets the usual 401.
  app.get('/api/admin/openapi.json', { config: { auth: 'operator' }, schema: { hide: true } }, async () =>
    filterDocument(app.swagger() as OpenApiDocument, true),
  );
  app.get('/api/admin/docs', { config: { auth: 'operator' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(renderDocsPage(filterDocument(app.swagger() as OpenApiDocument, true))),
  );
  // The page's assets: public, out of the OpenAPI document, cached by browsers for a day.
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'public' } as typeof route.config;
      route.schema = { ...route.schema, hide: true };
    });
    await scope.register(fastifyStatic, {
      root: SWAGGER_UI_ASSETS,
      prefix: ASSETS_PREFIX,
      decorateReply: false,
      maxAge: 86_400_000,
      index: false,
      allowedPath: (file) => !file.endsWith('.html'),
    });
  });
}
