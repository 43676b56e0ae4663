/** The desktop coder's conversation history, a versioned document: `/api/v1/desktop/coding-session`. */
import type { App } from '../../../../types.js';
import { documentRoutes, type DesktopDocumentRouteDeps } from '../../../shared/desktop-document.js';

export async function codingSessionRoutes(app: App, deps: DesktopDocumentRouteDeps): Promise<void> {
  documentRoutes(app, deps, { url: '/coding-session', kind: 'coding-session', what: 'coding conversation history' });
}
