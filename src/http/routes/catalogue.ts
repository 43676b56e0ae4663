/**
 * The API catalogue: `GET /openapi.json` and a human reference at `/docs`, both generated from the route
 * schemas. Admin routes (`/api/admin`) appear only when the request carries an operator bearer.
 */
import type { FastifyRequest } from 'fastify';
import { bearerFrom } from '../../accounts/identity.js';
import type { App } from '../app.js';
import type { Services } from '../../services.js';

type OpenApiDocument = { paths?: Record<string, Record<string, OperationObject>>; [key: string]: unknown };
type OperationObject = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  requestBody?: unknown;
  security?: unknown;
};

const HIDDEN = new Set(['/openapi.json', '/docs']);

async function isOperator(services: Services, request: FastifyRequest): Promise<boolean> {
  try {
    return (await services.identity.resolve(bearerFrom(request.headers, false))).kind === 'operator';
  } catch {
    return false;
  }
}

export function filterDocument(document: OpenApiDocument, includeAdmin: boolean): OpenApiDocument {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(
      ([path]) => !HIDDEN.has(path) && (includeAdmin || !path.startsWith('/api/admin')),
    ),
  );
  return { ...document, paths };
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderDocsPage(document: OpenApiDocument): string {
  const groups = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(document.paths ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'other';
      const params = (operation.parameters ?? [])
        .map((p) => `<code>${escapeHtml(p.in)}:${escapeHtml(p.name)}${p.required ? '*' : ''}</code>`)
        .join(' ');
      const row = `<tr><td><b>${method.toUpperCase()}</b></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(
        operation.summary ?? operation.description ?? '',
      )}</td><td>${params}${operation.requestBody ? ' <code>body</code>' : ''}</td></tr>`;
      groups.set(tag, [...(groups.get(tag) ?? []), row]);
    }
  }
  const sections = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, rows]) => `<h2>${escapeHtml(tag)}</h2><table><tr><th>Method</th><th>Path</th><th>Summary</th><th>Parameters</th></tr>${rows.join('')}</table>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchyard API reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}code{font-size:.9em}</style>
</head><body><h1>Switchyard API reference</h1><p>Generated from the route schemas; the machine-readable catalogue is <a href="/openapi.json">/openapi.json</a>. Authenticate with <code>Authorization: Bearer &lt;key&gt;</code>.</p>${sections}</body></html>`;
}

export async function catalogueRoutes(app: App, services: Services): Promise<void> {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (request) =>
    filterDocument(app.swagger() as OpenApiDocument, await isOperator(services, request)),
  );
  app.get('/docs', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const document = filterDocument(app.swagger() as OpenApiDocument, await isOperator(services, request));
    return reply.type('text/html; charset=utf-8').send(renderDocsPage(document));
  });
}
