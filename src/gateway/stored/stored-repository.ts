/**
 * Persistence of stored chat completions, the items of every stored object, and the retention purge. Every read is scoped to an owner (the
 * bearer's key) and ignores expired rows, so retention holds exactly even between two purge runs; another
 * owner's id behaves exactly like an id that does not exist.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { deleteChildren, insertItems, parseObject, replaceMetadata, type StoredItem } from './stored-rows.js';

export type { StoredItem } from './stored-rows.js';

export type SortOrder = 'asc' | 'desc';

export interface PageRequest {
  limit: number;
  /** Id of the last object (or item) the client has seen. */
  after?: string;
  order: SortOrder;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export interface NewStoredCompletion {
  completionId: string;
  owner: string;
  model: string;
  completion: Record<string, unknown>;
  metadata: Record<string, string>;
  messages: StoredItem[];
  createdAtMs: number;
  expiresAtMs: number;
}

export interface StoredCompletion {
  completionId: string;
  model: string;
  completion: Record<string, unknown>;
  metadata: Record<string, string>;
  createdAtMs: number;
}

export interface CompletionFilter extends PageRequest {
  model?: string;
  metadata?: Record<string, string>;
}

/** Thrown when a paging cursor names no object visible to the caller. */
export class UnknownCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`cursor ${cursor} not found`);
  }
}

export class StoredObjectRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insertCompletion(completion: NewStoredCompletion): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gateway_stored_completions')
        .values({
          completion_id: completion.completionId,
          owner: completion.owner,
          model: completion.model,
          completion_json: JSON.stringify(completion.completion),
          metadata_json: JSON.stringify(completion.metadata),
          created_at: completion.createdAtMs,
          expires_at: completion.expiresAtMs,
        })
        .execute();
      await insertItems(trx, completion.completionId, completion.messages);
      await replaceMetadata(trx, completion.completionId, completion.metadata);
    });
  }

  async findCompletion(owner: string, completionId: string, nowMs: number): Promise<StoredCompletion | undefined> {
    const row = await this.db
      .selectFrom('gateway_stored_completions')
      .select(['completion_id', 'model', 'completion_json', 'metadata_json', 'created_at'])
      .where('completion_id', '=', completionId)
      .where('owner', '=', owner)
      .where('expires_at', '>', nowMs)
      .executeTakeFirst();
    return row && toCompletion(row);
  }

  async listCompletions(owner: string, filter: CompletionFilter, nowMs: number): Promise<Page<StoredCompletion>> {
    let query = this.db
      .selectFrom('gateway_stored_completions as completion')
      .select([
        'completion.completion_id',
        'completion.model',
        'completion.completion_json',
        'completion.metadata_json',
        'completion.created_at',
      ])
      .where('completion.owner', '=', owner)
      .where('completion.expires_at', '>', nowMs);
    if (filter.model !== undefined) query = query.where('completion.model', '=', filter.model);
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('gateway_stored_metadata as pair')
            .select('pair.id')
            .whereRef('pair.object_id', '=', 'completion.completion_id')
            .where('pair.key', '=', key)
            .where('pair.value', '=', value),
        ),
      );
    }
    if (filter.after !== undefined) {
      const cursor = await this.db
        .selectFrom('gateway_stored_completions')
        .select('id')
        .where('completion_id', '=', filter.after)
        .where('owner', '=', owner)
        .executeTakeFirst();
      if (!cursor) throw new UnknownCursorError(filter.after);
      query = query.where('completion.id', filter.order === 'asc' ? '>' : '<', cursor.id);
    }
    const rows = await query
      .orderBy('completion.id', filter.order)
      .limit(filter.limit + 1)
      .execute();
    return { data: rows.slice(0, filter.limit).map(toCompletion), hasMore: rows.length > filter.limit };
  }

  /** Replaces the metadata of a visible completion; returns the updated completion or undefined. */
  async updateCompletionMetadata(
    owner: string,
    completionId: string,
    metadata: Record<string, string>,
    nowMs: number,
  ): Promise<StoredCompletion | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('gateway_stored_completions')
        .set({ metadata_json: JSON.stringify(metadata) })
        .where('completion_id', '=', completionId)
        .where('owner', '=', owner)
        .where('expires_at', '>', nowMs)
        .returning(['completion_id', 'model', 'completion_json', 'metadata_json', 'created_at'])
        .executeTakeFirst();
      if (!updated) return undefined;
      await replaceMetadata(trx, completionId, metadata);
      return toCompletion(updated);
    });
  }

  async deleteCompletion(owner: string, completionId: string, nowMs: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('gateway_stored_completions')
        .where('completion_id', '=', completionId)
        .where('owner', '=', owner)
        .where('expires_at', '>', nowMs)
        .executeTakeFirst();
      if (deleted.numDeletedRows === 0n) return false;
      await deleteChildren(trx, [completionId]);
      return true;
    });
  }

  /** Items of an object the caller already proved to own. */
  async listItems(objectId: string, page: PageRequest): Promise<Page<StoredItem>> {
    let query = this.db.selectFrom('gateway_stored_items').select(['item_id', 'item_json']).where('object_id', '=', objectId);
    if (page.after !== undefined) {
      const cursor = await this.db
        .selectFrom('gateway_stored_items')
        .select('position')
        .where('object_id', '=', objectId)
        .where('item_id', '=', page.after)
        .executeTakeFirst();
      if (!cursor) throw new UnknownCursorError(page.after);
      query = query.where('position', page.order === 'asc' ? '>' : '<', cursor.position);
    }
    const rows = await query
      .orderBy('position', page.order)
      .limit(page.limit + 1)
      .execute();
    return {
      data: rows.slice(0, page.limit).map((row) => ({ itemId: row.item_id, item: parseObject(row.item_json) })),
      hasMore: rows.length > page.limit,
    };
  }

  /** Deletes up to `batchSize` expired objects of each kind with their items; returns how many objects went. */
  async purgeExpired(nowMs: number, batchSize = 500): Promise<number> {
    const completionIds = (
      await this.db
        .selectFrom('gateway_stored_completions')
        .select('completion_id')
        .where('expires_at', '<=', nowMs)
        .limit(batchSize)
        .execute()
    ).map((row) => row.completion_id);
    const responseIds = (
      await this.db.selectFrom('gateway_stored_responses').select('response_id').where('expires_at', '<=', nowMs).limit(batchSize).execute()
    ).map((row) => row.response_id);
    if (completionIds.length + responseIds.length === 0) return 0;
    await this.db.transaction().execute(async (trx) => {
      if (completionIds.length > 0) {
        await trx.deleteFrom('gateway_stored_completions').where('completion_id', 'in', completionIds).execute();
        await deleteChildren(trx, completionIds);
      }
      if (responseIds.length > 0) {
        await trx.deleteFrom('gateway_stored_responses').where('response_id', 'in', responseIds).execute();
        await deleteChildren(trx, responseIds);
      }
    });
    return completionIds.length + responseIds.length;
  }
}

function toCompletion(row: {
  completion_id: string;
  model: string;
  completion_json: string;
  metadata_json: string;
  created_at: number;
}): StoredCompletion {
  return {
    completionId: row.completion_id,
    model: row.model,
    completion: parseObject(row.completion_json),
    metadata: JSON.parse(row.metadata_json) as Record<string, string>,
    createdAtMs: row.created_at,
  };
}
