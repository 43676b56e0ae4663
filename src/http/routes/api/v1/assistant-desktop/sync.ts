/** The assistant desktop's synchronized history, a versioned document: `/api/v1/assistant-desktop/sync`. */
import type { App } from '../../../../types.js';
import { documentRoutes, type DesktopDocumentRouteDeps } from '../../../shared/desktop-document.js';

export async function assistantSyncRoutes(app: App, deps: DesktopDocumentRouteDeps): Promise<void> {
  documentRoutes(app, deps, { url: '/sync', kind: 'assistant-sync', what: 'synchronized assistant history' });
}
