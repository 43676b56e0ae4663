/** Where an SSE client resumes: the `Last-Event-ID` header, else `?after=` (project and direct event streams). */
import { validationError } from '../../../kernel/errors.js';

export function cursorFrom(lastEventId: string | string[] | undefined, after: number | undefined): number | null {
  // A reconnecting EventSource keeps its original URL (?after=) and sends the newer Last-Event-ID: the header wins.
  if (lastEventId === undefined) return after ?? null;
  const text = (Array.isArray(lastEventId) ? lastEventId[0]! : lastEventId).trim();
  if (!/^\d{1,15}$/.test(text)) {
    throw validationError([{ loc: ['header', 'last-event-id'], msg: 'Last-Event-ID must be a sequence number', type: 'int_parsing' }]);
  }
  return Number(text);
}
