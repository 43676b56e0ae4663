/** The OpenAPI document (`/openapi.json`), generated from every route's declared schemas. */
import swagger from '@fastify/swagger';
import type { AppConfig } from '../../config/load-config.js';
import { SERVICE_VERSION } from '../../kernel/version.js';
import { docsLanding, referenceTransform } from '../api-reference.js';
import type { App } from '../types.js';

export async function registerOpenApi(app: App, config: AppConfig): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Switchyard', version: SERVICE_VERSION, description: docsLanding(config) },
      servers: [{ url: config.publicBaseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: referenceTransform(config),
  });
}
