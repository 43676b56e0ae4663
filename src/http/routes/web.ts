/**
 * The web front end built by `npm run build` (scripts/build-web.mjs → dist/web): `/<page>.html` for every page
 * (dashboard, login, admin, …) and their hashed assets under `/assets/`. Pages are never cached and carry a strict
 * Content-Security-Policy (no inline script or style, same-origin connections only); assets are immutable for a
 * year because their names change with their content. Everything here is public: the pages hold no data and talk
 * only to the documented `/api` routes, which authorize each call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { App } from '../types.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** dist/web next to the compiled service, or beside the sources when the tests run them directly. */
export function webRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../../web'), path.resolve(here, '../../../dist/web')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'dashboard.html'))) ?? candidates[candidates.length - 1]!;
}

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-cache');
}

export async function webRoutes(app: App): Promise<void> {
  const root = webRoot();
  const pagePattern = /^[a-z][a-z0-9-]{0,40}$/;
  app.get('/', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/dashboard.html', 302));
  app.get<{ Params: { page: string } }>('/:page.html', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const page = request.params.page;
    const file = path.join(root, `${page}.html`);
    if (!pagePattern.test(page) || !fs.existsSync(file)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    return pageHeaders(reply).type('text/html; charset=utf-8').send(fs.readFileSync(file));
  });
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'public' } as typeof route.config;
      route.schema = { ...route.schema, hide: true };
    });
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-content-type-options', 'nosniff');
      return payload;
    });
    const assets = path.join(root, 'assets');
    fs.mkdirSync(assets, { recursive: true });
    await scope.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: 365 * 86_400_000,
    });
  });
}
