/** `GET /api/v1/vip`: VIP priority server access of the caller (public; a bearer, when sent, is resolved). */
import { bearerFrom } from '../../../../accounts/identity.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';

export async function vipRoutes(app: App, services: Services): Promise<void> {
  const { config } = services;

  app.get('/api/v1/vip', { config: { auth: 'public' }, schema: { tags: ['wallet'], summary: 'VIP priority server access of the caller' } }, async (request) => {
    const token = bearerFrom(request.headers, false);
    const principal = token === undefined ? null : await services.identity.resolve(token);
    return {
      vip: principal === null ? null : principal.kind === 'operator' || principal.vip,
      servers: config.vip.hosts,
      models: config.vip.models,
      description: config.vip.description,
    };
  });
}
