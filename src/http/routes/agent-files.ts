import type { App } from '../app.js';
import type { Services } from '../../services.js';

export async function agentFilesRoutes(_app: App, _services: Services): Promise<void> {}
