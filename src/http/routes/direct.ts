import type { App } from '../app.js';
import type { Services } from '../../services.js';

export async function directRoutes(_app: App, _services: Services): Promise<void> {}
