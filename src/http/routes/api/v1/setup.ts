/** `POST /api/v1/setup/health-check`: the non-billable readiness check of the calling key. */
import { Type } from '@sinclair/typebox';
import { walletOwnerOf as customerOf } from '../../../caller.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';
import { keyHealth } from './me-api-keys.js';

const account = { auth: 'api', surface: 'account' } as const;

export async function setupRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/api/v1/setup/health-check',
    {
      config: account,
      schema: { tags: ['keys'], summary: 'Non-billable readiness check of the calling key', body: Type.Union([Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })) }), Type.Null()]) },
    },
    async (request) => {
      const principal = customerOf(request);
      return keyHealth(services, principal, principal.keyId, request.body?.model);
    },
  );
}
