/**
 * Versioned desktop documents, registered by `api/v1/desktop/coding-session.ts` and `api/v1/assistant-desktop/sync.ts`
 * (the coding-session history and the assistant-desktop sync). GET returns
 * `{version, data, size_bytes, updated_at}` (version 0 and `{}` before the first write); PUT `{version, data}`
 * replaces exactly that version (stale: 409 with `current_version`; too large: 413).
 */
import { Type } from '@sinclair/typebox';
import { customerOf } from '../../caller.js';
import type { DocumentKind } from '../../../desktop/documents.js';
import type { AppConfig } from '../../../config/load-config.js';
import type { DesktopServices } from '../../../desktop/index.js';
import type { App } from '../../types.js';

const PutBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The version this write replaces (0 before the first write).',
    }),
    data: Type.Object({}, { additionalProperties: true, description: 'The whole document (free-form JSON object).' }),
  },
  { additionalProperties: false },
);
const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface DesktopDocumentRouteDeps {
  desktop: Pick<DesktopServices, 'documents'>;
  config: AppConfig;
}

/** GET and PUT of one versioned document at `url` (relative to the plugin's prefix). */
export function documentRoutes(
  app: App,
  deps: DesktopDocumentRouteDeps,
  document: { url: string; kind: DocumentKind; what: string },
): void {
  const { documents } = deps.desktop;
  const { url, kind, what } = document;
  // Room for the document's own limit plus JSON escaping overhead; the exact limit is checked on the parsed data.
  const bodyLimit = deps.config.desktop.documentMaxBytes * 2 + 4096;
  app.get(
    url,
    { config: customerAccount, schema: { tags: ['desktop'], summary: `Loads the ${what}: {version, data, size_bytes, updated_at}` } },
    async (request) => documents.get(customerOf(request).customerId, kind),
  );
  app.put(
    url,
    {
      config: customerAccount,
      bodyLimit,
      schema: {
        tags: ['desktop'],
        summary: `Replaces the ${what} at the version it names (stale: 409 with current_version; too large: 413)`,
        body: PutBody,
      },
    },
    async (request) => {
      const saved = await documents.put(
        customerOf(request).customerId,
        kind,
        request.body.version,
        request.body.data as Record<string, unknown>,
      );
      return { version: saved.version, size_bytes: saved.size_bytes, updated_at: saved.updated_at };
    },
  );
}
