/**
 * Versioned per-customer documents (the desktop coding session, the assistant-desktop sync). A write names the
 * version it replaces: a stale one is a 409 carrying the current version, never a silent overwrite. Documents
 * are JSON objects, bounded in bytes (413) and nesting depth (422).
 */
import { AppError, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';

export type DocumentKind = 'coding-session' | 'assistant-sync';

export interface DocumentLimits {
  maxBytes: number;
  maxDepth: number;
}

export interface StoredDocument {
  version: number;
  data: Record<string, unknown>;
  size_bytes: number;
  updated_at: string | null;
}

/** Deepest nesting of arrays/objects (a scalar is 0, `{}` is 1), walked without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, here]);
    }
  }
  return deepest;
}

export class VersionedDocuments {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly limits: DocumentLimits,
  ) {}

  async get(customerId: number, kind: DocumentKind): Promise<StoredDocument> {
    const row = await this.storage.db
      .selectFrom('desktop_documents')
      .select(['version', 'body_json', 'size_bytes', 'updated_at'])
      .where('customer_id', '=', customerId)
      .where('kind', '=', kind)
      .executeTakeFirst();
    if (!row) return { version: 0, data: {}, size_bytes: 2, updated_at: null };
    return {
      version: Number(row.version),
      data: JSON.parse(row.body_json) as Record<string, unknown>,
      size_bytes: Number(row.size_bytes),
      updated_at: new Date(Number(row.updated_at)).toISOString(),
    };
  }

  /** Replaces version `baseVersion` (0: none written yet) with `data`; returns the new version. */
  async put(customerId: number, kind: DocumentKind, baseVersion: number, data: Record<string, unknown>): Promise<StoredDocument> {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw validationError([{ loc: ['body', 'data'], msg: 'data must be a JSON object', type: 'type_error.dict' }]);
    }
    const depth = jsonDepth(data);
    if (depth > this.limits.maxDepth) {
      throw validationError([
        {
          loc: ['body', 'data'],
          msg: `data is nested ${depth} levels deep; at most ${this.limits.maxDepth} are accepted`,
          type: 'value_error.depth',
        },
      ]);
    }
    const body = JSON.stringify(data);
    const size = Buffer.byteLength(body, 'utf8');
    if (size > this.limits.maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The document is ${size} bytes; at most ${this.limits.maxBytes} are accepted`, {
        details: { size_bytes: size, max_bytes: this.limits.maxBytes },
      });
    }
    const now = this.clock.nowMs();
    const next = baseVersion + 1;
    const db = this.storage.db;
    let written: boolean;
    if (baseVersion === 0) {
      const inserted = await db
        .insertInto('desktop_documents')
        .values({ customer_id: customerId, kind, version: next, body_json: body, size_bytes: size, updated_at: now })
        .onConflict((conflict) => conflict.columns(['customer_id', 'kind']).doNothing())
        .executeTakeFirst();
      written = Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
    } else {
      const updated = await db
        .updateTable('desktop_documents')
        .set({ version: next, body_json: body, size_bytes: size, updated_at: now })
        .where('customer_id', '=', customerId)
        .where('kind', '=', kind)
        .where('version', '=', baseVersion)
        .executeTakeFirst();
      written = Number(updated.numUpdatedRows) === 1;
    }
    if (!written) {
      const current = await this.get(customerId, kind);
      throw new AppError('CONFLICT', `The document changed: version ${baseVersion} is stale, the current version is ${current.version}`, {
        details: { current_version: current.version, updated_at: current.updated_at },
      });
    }
    return { version: next, data, size_bytes: size, updated_at: new Date(now).toISOString() };
  }
}
