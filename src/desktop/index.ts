/** The desktop client domain: one factory building every desktop service from the shared deps. */
import type { DomainDeps } from '../services.js';
import { BugReports } from './bug-reports.js';
import { VersionedDocuments } from './documents.js';
import { Presence } from './presence.js';
import { PushMessages } from './push.js';
import { Shoutbox } from './shoutbox.js';

export interface DesktopServices {
  documents: VersionedDocuments;
  bugReports: BugReports;
  presence: Presence;
  push: PushMessages;
  shoutbox: Shoutbox;
}

export function createDesktopServices(deps: Pick<DomainDeps, 'config' | 'storage' | 'clock'>): DesktopServices {
  const { config, storage, clock } = deps;
  return {
    documents: new VersionedDocuments(storage, clock, { maxBytes: config.desktop.documentMaxBytes, maxDepth: config.desktop.documentMaxDepth }),
    bugReports: new BugReports(storage, clock, config.desktop.bugReportMaxBytes),
    presence: new Presence(storage, clock, config.desktop.presenceTtlSeconds),
    push: new PushMessages(storage, clock),
    shoutbox: new Shoutbox(storage, clock, config.desktop.shoutbox),
  };
}
