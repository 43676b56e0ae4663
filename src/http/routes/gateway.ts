/** The model-API gateway surface (`/v1/*`) and its operator routes; each part lives in routes/gateway/. */
import type { App } from '../types.js';
import type { Services } from '../../services.js';
import { chatRoutes } from './gateway/chat.js';
import { embeddingsRoutes } from './gateway/embeddings.js';
import { messagesRoutes } from './gateway/messages.js';
import { modelRoutes } from './gateway/models.js';
import { responsesRoutes } from './gateway/responses.js';
import { gatewayLifecycleRoutes } from './gateway-stored-lifecycle.js';
import { gatewayStoredRoutes } from './gateway-stored.js';

export async function gatewayRoutes(app: App, services: Services): Promise<void> {
  await modelRoutes(app, services);
  await chatRoutes(app, services);
  await responsesRoutes(app, services);
  await messagesRoutes(app, services);
  await embeddingsRoutes(app, services);
  await gatewayStoredRoutes(app, services);
  await gatewayLifecycleRoutes(app, services);
}
