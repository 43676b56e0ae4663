/** Registers every route module. Each surface owns one module (or a folder) under `routes/`. */
import type { App } from '../app.js';
import type { Services } from '../../services.js';
import { accountRoutes } from './accounts.js';
import { adminRoutes } from './admin.js';
import { agentEventsRoutes } from './agent-events.js';
import { agentFilesRoutes } from './agent-files.js';
import { agentProjectRoutes } from './agent-projects.js';
import { agentRoutes } from './agent.js';
import { billingRoutes } from './billing.js';
import { catalogueRoutes } from './catalogue.js';
import { directRoutes } from './direct.js';
import { gatewayRoutes } from './gateway.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { publicRoutes } from './public.js';
import { adminMessageRoutes } from './api/admin/messages.js';
import { authRoutes } from './api/v1/auth.js';
import { meRoutes } from './api/v1/me.js';
import { messageRoutes } from './api/v1/messages.js';
import { toolboxRoutes } from './api/v1/toolbox.js';

export async function registerRoutes(app: App, services: Services): Promise<void> {
  for (const module of [
    healthRoutes,
    metricsRoutes,
    catalogueRoutes,
    publicRoutes,
    accountRoutes,
    adminRoutes,
    billingRoutes,
    gatewayRoutes,
    agentRoutes,
    agentProjectRoutes,
    agentEventsRoutes,
    agentFilesRoutes,
    directRoutes,
    authRoutes,
    meRoutes,
    messageRoutes,
    toolboxRoutes,
    adminMessageRoutes,
  ]) {
    await module(app, services);
  }
}
