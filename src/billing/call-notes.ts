/**
 * The call's record of what it went on without: when a destination does not take a hosted tool or a request field,
 * the names go in the answer's headers (gateway/protocols/driver.ts) and here, one row per such call, read back beside the
 * call's billing record (reports.ts). The write is not awaited by the call: it never delays the answer, and
 * a failed write is logged, not the call's failure.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';

export interface DroppedNames {
  tools: string[];
  fields: string[];
}

export class CallNotes {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  record(customerId: number, requestId: string, dropped: DroppedNames): void {
    if (dropped.tools.length === 0 && dropped.fields.length === 0) return;
    this.db
      .insertInto('call_notes')
      .values({
        customer_id: customerId,
        request_id: requestId,
        dropped_tools: JSON.stringify(dropped.tools),
        dropped_fields: JSON.stringify(dropped.fields),
        created_at: this.clock.nowMs(),
      })
      .execute()
      .catch((error: unknown) => this.logger.warn({ err: error, requestId }, 'the names a call dropped were not recorded'));
  }
}

/** The dropped names of a customer's calls, by request id. */
export async function droppedByRequest(db: Kysely<Database>, customerId: number, requestIds: string[]): Promise<Map<string, DroppedNames>> {
  const notes = new Map<string, DroppedNames>();
  if (requestIds.length === 0) return notes;
  const rows = await db
    .selectFrom('call_notes')
    .select(['request_id', 'dropped_tools', 'dropped_fields'])
    .where('customer_id', '=', customerId)
    .where('request_id', 'in', [...new Set(requestIds)])
    .execute();
  for (const row of rows) {
    const known = notes.get(row.request_id) ?? { tools: [], fields: [] };
    known.tools.push(...(JSON.parse(row.dropped_tools) as string[]));
    known.fields.push(...(JSON.parse(row.dropped_fields) as string[]));
    notes.set(row.request_id, known);
  }
  return notes;
}
