/** Desktop client: versioned documents, bug reports, presence and the shoutbox. */
import { Type, type Static } from '@sinclair/typebox';
import { ObjectWorkspaceSection } from './object-workspace.js';

export const DesktopSection = Type.Object(
  {
    documentMaxBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024, description: 'Largest coding-session or sync document (UTF-8 bytes of its JSON); larger PUTs are 413.' }),
    documentMaxDepth: Type.Integer({ minimum: 2, maximum: 256, default: 64, description: 'Deepest nesting of objects and arrays accepted in a document (422 beyond).' }),
    bugReportMaxBytes: Type.Integer({ minimum: 256, maximum: 4 * 1024 * 1024, default: 64 * 1024, description: 'Largest bug report (text plus log excerpt, UTF-8 bytes); larger ones are 413.' }),
    presenceTtlSeconds: Type.Integer({ minimum: 10, maximum: 24 * 3600, default: 120, description: 'A desktop client counts as online this long after its last heartbeat.' }),
    shoutbox: Type.Object(
      {
        maxMessageChars: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
        messagesPerMinute: Type.Integer({ minimum: 1, maximum: 1000, default: 6, description: 'Messages one customer may post per minute (429 beyond).' }),
      },
      { default: {}, additionalProperties: false },
    ),
    objectWorkspace: ObjectWorkspaceSection,
  },
  { default: {}, additionalProperties: false },
);
export type DesktopConfig = Static<typeof DesktopSection>;
