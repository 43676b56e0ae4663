/** The desktop client domain: one factory building every desktop service from the shared deps. */
import type { DomainDeps } from '../services.js';
import { VersionedDocuments } from './documents.js';

export interface DesktopServices {
  documents: VersionedDocuments;
}

export function createDesktopServices(deps: Pick<DomainDeps, 'config' | 'storage' | 'clock'>): DesktopServices {
  const { config, storage, clock } = deps;
  return {
    documents: new VersionedDocuments(storage, clock, { maxBytes: config.desktop.documentMaxBytes, maxDepth: config.desktop.documentMaxDepth }),
  };
}
