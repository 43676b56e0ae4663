/** Agent metadata: defaults and live runtime state, permission profile presets and skills (`/api/v1/agent/status`, `/api/v1/permissions`, `/api/v1/skills`). */
import type { AgentServices } from '../../../../agent/index.js';
import type { App } from '../../../types.js';

const projectRoute = { auth: 'api', surface: 'projects' } as const;

export interface AgentRouteDeps {
  agent: Pick<AgentServices, 'catalog'>;
}

export async function agentRoutes(app: App, deps: AgentRouteDeps): Promise<void> {
  const { agent } = deps;

  app.get(
    '/agent/status',
    { config: projectRoute, schema: { tags: ['agent'], summary: 'Agent defaults, live runtime and the caller’s account state' } },
    (request) => agent.catalog.status(request.principal!),
  );
  app.get('/permissions', { config: projectRoute, schema: { tags: ['agent'], summary: 'Permission profile presets' } }, (request) =>
    agent.catalog.permissions(request.principal!),
  );
  app.get('/skills', { config: projectRoute, schema: { tags: ['agent'], summary: 'Skills available to agent sessions' } }, (request) =>
    agent.catalog.skills(request.principal!),
  );
}
