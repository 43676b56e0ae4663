/** `GET /api/v1/vip`: VIP priority server access of the caller (public; a bearer, when sent, is resolved). */
import { bearerFrom } from '../../../../accounts/identity.js';
import type { Identity } from '../../../../accounts/identity.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';

export interface VipRouteDeps {
  identity: Pick<Identity, 'resolve'>;
  config: AppConfig;
}

export async function vipRoutes(app: App, deps: VipRouteDeps): Promise<void> {
  const { config } = deps;

  app.get(
    '/vip',
    { config: { auth: 'public' }, schema: { tags: ['wallet'], summary: 'VIP priority server access of the caller' } },
    async (request) => {
      const token = bearerFrom(request.headers, false);
      const principal = token === undefined ? null : await deps.identity.resolve(token);
      return {
        vip: principal === null ? null : principal.kind === 'operator' || principal.vip,
        servers: config.vip.hosts,
        models: config.vip.models,
        description: config.vip.description,
      };
    },
  );
}
