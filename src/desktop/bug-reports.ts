/** Bug reports sent by the desktop app: stored as text (bounded in bytes) and listed for operators. */
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso, storableText } from './text.js';

export interface BugReportInput {
  text: string;
  appVersion: string;
  os: string;
  logExcerpt?: string;
}

export class BugReports {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly maxBytes: number,
  ) {}

  async submit(customerId: number, input: BugReportInput): Promise<{ id: number; created_at: string }> {
    const size = Buffer.byteLength(input.text, 'utf8') + Buffer.byteLength(input.logExcerpt ?? '', 'utf8');
    if (size > this.maxBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The report is ${size} bytes (text plus log excerpt); at most ${this.maxBytes} are accepted`,
        { details: { size_bytes: size, max_bytes: this.maxBytes } },
      );
    }
    const now = this.clock.nowMs();
    const row = await this.storage.db
      .insertInto('desktop_bug_reports')
      .values({
        customer_id: customerId,
        text: storableText(input.text),
        app_version: storableText(input.appVersion),
        os: storableText(input.os),
        log_excerpt: input.logExcerpt === undefined ? null : storableText(input.logExcerpt),
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), created_at: iso(now)! };
  }

  /** Newest first; `beforeId` pages back, `customerId` narrows to one customer. */
  async list(options: { limit: number; beforeId?: number; customerId?: number }) {
    let query = this.storage.db
      .selectFrom('desktop_bug_reports as r')
      .innerJoin('customers as c', 'c.id', 'r.customer_id')
      .select(['r.id', 'r.customer_id', 'c.email', 'r.text', 'r.app_version', 'r.os', 'r.log_excerpt', 'r.created_at'])
      .orderBy('r.id', 'desc')
      .limit(options.limit);
    if (options.beforeId !== undefined) query = query.where('r.id', '<', options.beforeId);
    if (options.customerId !== undefined) query = query.where('r.customer_id', '=', options.customerId);
    const rows = await query.execute();
    return {
      data: rows.map((row) => ({
        id: Number(row.id),
        customer_id: Number(row.customer_id),
        email: row.email,
        text: row.text,
        app_version: row.app_version,
        os: row.os,
        log_excerpt: row.log_excerpt,
        created_at: iso(row.created_at),
      })),
    };
  }
}
